package dev.lockstep.transactions.xa.log;

import com.atomikos.recovery.LogReadException;
import com.atomikos.recovery.LogWriteException;
import com.atomikos.recovery.PendingTransactionRecord;
import com.atomikos.recovery.TxState;
import dev.lockstep.platform.DatabaseVendor;
import dev.lockstep.platform.FencedNode;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator log in the business database ({@code tm_coordinator_log}), the same group commit as
 * {@link AppendOnlyLogFile}: {@link #put} only queues a record, {@link #forceAppended()} writes every queued record
 * in one transaction and commits it, so concurrent decisions share one commit. One row per coordinator of this
 * transaction-manager name, superseded in place by its later state.
 *
 * <p>Fencing: every row is written by a statement that changes nothing unless this instance's lease epoch still
 * holds the name in {@code recovery_node}. A batch with a refused row is rolled back, Atomikos gets a
 * {@link LogWriteException} (the transaction does not commit) and the node stops ({@link FencedNode}).
 *
 * <p>A TERMINATED record is not forced: it is written with the next decision's commit, or at the latest by the lazy
 * flush a second later, so the table does not show a finished transaction as COMMITTING while the node is idle (an
 * operator, or a peer taking the name over, would otherwise read it as undone; only a crash can lose it, and then
 * recovery finds the branches gone).
 *
 * <p>Locks, always taken in this order: {@code forceLock}, then this object's monitor. A commit runs under
 * {@code forceLock} alone, so other threads keep appending while it runs.
 */
final class DatabaseLogRepository implements GroupCommitRepository {

    private static final Logger log = LoggerFactory.getLogger(DatabaseLogRepository.class);
    private static final long LAZY_FLUSH_MILLIS = 1_000;

    private final DatabaseLogTarget target;
    private final LogStatements statements;
    private final Object forceLock = new Object();
    private final ThreadLocal<Long> lastAppendedByThread = ThreadLocal.withInitial(() -> 0L);
    private List<PendingTransactionRecord> queued = new ArrayList<>(); // guarded by this
    private long recordsAppended;                                       // guarded by this
    private long recordsDurable;                                        // guarded by forceLock
    private final TreeMap<Long, Long> lostRanges = new TreeMap<>();     // guarded by forceLock; first → last sequence
    private boolean fenced;                                             // guarded by forceLock
    private long commits;                                               // guarded by forceLock
    private final ScheduledExecutorService lazyFlush = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "coordinator-log-flush");
        thread.setDaemon(true);
        return thread;
    });

    DatabaseLogRepository(DatabaseLogTarget target) {
        this.target = target;
        this.statements = target.vendor() == DatabaseVendor.ORACLE ? LogStatements.ORACLE : LogStatements.POSTGRESQL;
    }

    /** The table is the business database's (migration V440); the pool connects on first use. */
    @Override
    public void init() {
        lazyFlush.scheduleWithFixedDelay(this::flushQueued, LAZY_FLUSH_MILLIS, LAZY_FLUSH_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** Writes what was queued without a force (TERMINATED records); a failure leaves them to the next write. */
    private void flushQueued() {
        synchronized (forceLock) {
            if (fenced) {
                return;
            }
            try {
                writeQueued();
            } catch (LogWriteException | RuntimeException e) {
                log.debug("lazy flush of the coordinator log failed: {}", e.toString());
            }
        }
    }

    @Override
    public synchronized void put(String id, PendingTransactionRecord record) {
        queued.add(record);
        recordsAppended++;
        lastAppendedByThread.set(recordsAppended);
    }

    /**
     * Returns once the calling thread's records are committed. A thread whose records an earlier commit already
     * covered returns at once; otherwise one transaction writes its records and every record queued by then. A
     * thread whose record was in a batch that failed gets the failure too, even when a later batch committed.
     */
    @Override
    public void forceAppended() throws LogWriteException {
        long needed = lastAppendedByThread.get();
        synchronized (forceLock) {
            Map.Entry<Long, Long> lost = lostRanges.floorEntry(needed);
            boolean inALostBatch = lost != null && lost.getValue() >= needed;
            if (!inALostBatch && recordsDurable >= needed) {
                return;
            }
            if (inALostBatch || fenced) {
                throw new LogWriteException(new IllegalStateException("the coordinator log could not write this"
                        + " transaction's record" + (fenced ? ": this node is fenced" : "")));
            }
            writeQueued();
            commits++;
        }
    }

    /** Under {@code forceLock}: writes and commits everything queued; on failure those records are lost ranges. */
    private void writeQueued() throws LogWriteException {
        List<PendingTransactionRecord> batch;
        long first;
        long last;
        synchronized (this) {
            batch = queued;
            queued = new ArrayList<>();
            first = recordsAppended - batch.size() + 1;
            last = recordsAppended;
        }
        if (batch.isEmpty()) {
            return;
        }
        try {
            write(batch);
        } catch (LogWriteException e) {
            lostRanges.put(first, last);
            throw e;
        }
        recordsDurable = last;
    }

    private void write(List<PendingTransactionRecord> batch) throws LogWriteException {
        try (Connection connection = target.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            try (PreparedStatement write = connection.prepareStatement(statements.write())) {
                for (PendingTransactionRecord record : batch) {
                    statements.bindWrite(write, target.tmName(), target.epoch(), record);
                    write.addBatch();
                }
                if (Arrays.stream(write.executeBatch()).anyMatch(rows -> rows == 0)) {
                    connection.rollback();
                    throw fence(connection);
                }
            }
            connection.commit();
        } catch (SQLException e) {
            throw new LogWriteException(e);
        }
    }

    /** Under {@code forceLock}: the database refused a write under this epoch; the node stops. */
    private LogWriteException fence(Connection connection) throws SQLException {
        fenced = true;
        Object current;
        try (PreparedStatement epoch = connection.prepareStatement("select epoch from recovery_node where tm_name = ?")) {
            epoch.setString(1, target.tmName());
            try (ResultSet row = epoch.executeQuery()) {
                current = row.next() ? row.getLong(1) : "none (the name's row is gone)";
            }
        }
        FencedNode.stop(target.tmName(), target.epoch(), current);
        return new LogWriteException(new IllegalStateException("fenced: transaction manager name " + target.tmName()
                + " is held under epoch " + current + ", not " + target.epoch()));
    }

    @Override
    public long forces() {
        synchronized (forceLock) {
            return commits;
        }
    }

    /**
     * A checkpoint leaves the table holding this name's live records and nothing else, as the file log's checkpoint
     * rewrites the file with them: queued records are committed, then every other row of the name is deleted, a
     * TERMINATED one (its decision is carried out) as well as one Atomikos forgot without writing TERMINATED (a
     * COMMITTING record whose branches its recovery found gone). Keeping them would make the table grow with every
     * transaction (Atomikos logs COMMITTING and TERMINATED even for one-phase ones) and show finished transactions as
     * undone; the audit trail and the intent journal are where history is kept. Safe against a concurrent decision:
     * Atomikos takes its live records and puts new ones under one lock ({@code CachedRepository}), so a row written
     * after the snapshot was put after the checkpoint began and is still queued here.
     */
    @Override
    public void writeCheckpoint(Collection<PendingTransactionRecord> liveRecords) throws LogWriteException {
        Set<String> live = new HashSet<>();
        liveRecords.forEach(record -> live.add(record.id));
        synchronized (forceLock) {
            if (fenced) {
                return;
            }
            writeQueued();
            try (Connection connection = target.dataSource().getConnection()) {
                connection.setAutoCommit(false);
                List<String> gone = new ArrayList<>();
                try (PreparedStatement read = connection.prepareStatement(
                        "select coordinator_id from tm_coordinator_log where tm_name = ?")) {
                    read.setString(1, target.tmName());
                    try (ResultSet rows = read.executeQuery()) {
                        while (rows.next()) {
                            if (!live.contains(rows.getString(1))) {
                                gone.add(rows.getString(1));
                            }
                        }
                    }
                }
                try (PreparedStatement delete = connection.prepareStatement(statements.deleteNotLive())) {
                    for (String coordinator : gone) {
                        statements.bindDeleteNotLive(delete, target.tmName(), coordinator, target.epoch());
                        delete.addBatch();
                    }
                    delete.executeBatch();
                }
                connection.commit();
            } catch (SQLException e) {
                throw new LogWriteException(e);
            }
        }
    }

    /** This name's records that are not TERMINATED, whichever epoch wrote them (an earlier run of this node). */
    @Override
    public Collection<PendingTransactionRecord> getAllCoordinatorLogEntries() throws LogReadException {
        List<PendingTransactionRecord> records = new ArrayList<>();
        try (Connection connection = target.dataSource().getConnection();
                PreparedStatement read = connection.prepareStatement(
                        "select record_text from tm_coordinator_log where tm_name = ? and state <> ?")) {
            read.setString(1, target.tmName());
            read.setString(2, TxState.TERMINATED.name());
            try (ResultSet rows = read.executeQuery()) {
                while (rows.next()) {
                    records.add(PendingTransactionRecord.fromRecord(rows.getString(1)));
                }
            }
        } catch (SQLException e) {
            throw new LogReadException(e);
        }
        return records;
    }

    /**
     * Atomikos's record text without the line separator {@code toRecord()} ends it with (a line of its file). Kept, the
     * separator would be read back by {@code fromRecord} as the record's superior id: the record would no longer be a
     * local root, and recovery would never replay a COMMITTING one (chaos 46 and 66-70 on this log).
     */
    static String recordText(PendingTransactionRecord record) {
        return record.toRecord().stripTrailing();
    }

    /** Lookups are served by the in-memory copy in front of this table ({@code CachedRepository}). */
    @Override
    public PendingTransactionRecord get(String coordinatorId) {
        throw new UnsupportedOperationException("read through the in-memory repository");
    }

    @Override
    public Collection<PendingTransactionRecord> findAllCommittingCoordinatorLogEntries() {
        throw new UnsupportedOperationException("read through the in-memory repository");
    }

    /** TERMINATED records still queued are written, so the next start does not redo their commits. */
    @Override
    public void close() {
        lazyFlush.shutdownNow();
        synchronized (forceLock) {
            if (fenced) {
                return;
            }
            try {
                writeQueued();
            } catch (LogWriteException e) {
                log.warn("the coordinator log's last records were not written; recovery will find their transactions"
                        + " already committed: {}", e.getMessage());
            }
        }
    }

    /** The log's writes by vendor; each changes nothing unless the epoch still holds the name. */
    private enum LogStatements {
        POSTGRESQL {
            @Override
            String write() {
                // FOR SHARE: a takeover's epoch change waits for this commit, and this write sees a committed change
                return """
                        insert into tm_coordinator_log (tm_name, coordinator_id, epoch, state, record_text, created_at,
                               updated_at)
                        select ?, ?, ?, ?, ?, now(), now()
                         where exists (select 1 from recovery_node where tm_name = ? and epoch = ? for share)
                        on conflict (tm_name, coordinator_id) do update set epoch = excluded.epoch, state = excluded.state,
                               record_text = excluded.record_text, updated_at = excluded.updated_at
                        """;
            }

            @Override
            void bindWrite(PreparedStatement write, String tmName, long epoch, PendingTransactionRecord record)
                    throws SQLException {
                write.setString(1, tmName);
                write.setString(2, record.id);
                write.setLong(3, epoch);
                write.setString(4, record.state.name());
                write.setString(5, recordText(record));
                write.setString(6, tmName);
                write.setLong(7, epoch);
            }

            @Override
            String deleteNotLive() {
                return "delete from tm_coordinator_log where tm_name = ? and coordinator_id = ?"
                        + " and exists (select 1 from recovery_node where tm_name = ? and epoch = ? for share)";
            }
        },

        ORACLE {
            @Override
            String write() {
                return """
                        merge into tm_coordinator_log l
                        using (select n.tm_name, ? coordinator_id, n.epoch, ? state, ? record_text from recovery_node n
                                where n.tm_name = ? and n.epoch = ?) s
                           on (l.tm_name = s.tm_name and l.coordinator_id = s.coordinator_id)
                        when matched then update set l.epoch = s.epoch, l.state = s.state, l.record_text = s.record_text,
                               l.updated_at = systimestamp
                        when not matched then insert (tm_name, coordinator_id, epoch, state, record_text, created_at,
                               updated_at)
                               values (s.tm_name, s.coordinator_id, s.epoch, s.state, s.record_text, systimestamp,
                                       systimestamp)
                        """;
            }

            @Override
            void bindWrite(PreparedStatement write, String tmName, long epoch, PendingTransactionRecord record)
                    throws SQLException {
                write.setString(1, record.id);
                write.setString(2, record.state.name());
                write.setString(3, recordText(record));
                write.setString(4, tmName);
                write.setLong(5, epoch);
            }

            @Override
            String deleteNotLive() {
                return "delete from tm_coordinator_log where tm_name = ? and coordinator_id = ?"
                        + " and exists (select 1 from recovery_node where tm_name = ? and epoch = ?)";
            }
        };

        /** One row changed when written, none when a newer epoch holds the name. */
        abstract String write();

        abstract void bindWrite(PreparedStatement write, String tmName, long epoch, PendingTransactionRecord record)
                throws SQLException;

        /** Deletes one row of the name that is no longer live, unless a newer epoch holds the name. */
        abstract String deleteNotLive();

        void bindDeleteNotLive(PreparedStatement delete, String tmName, String coordinatorId, long epoch) throws SQLException {
            delete.setString(1, tmName);
            delete.setString(2, coordinatorId);
            delete.setString(3, tmName);
            delete.setLong(4, epoch);
        }
    }
}
