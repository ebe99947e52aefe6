package dev.lockstep.platform.audit;

import dev.lockstep.platform.AreaApi;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowCallbackHandler;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The append-only record of every decision and control action: who (and their roles), what, on which
 * application, lifecycle and definition version, under which request and XA transaction, when and by which
 * clock. Each entry stores {@code sha256(prev_hash + canonical entry)} ({@link AuditEntryFormat}), so changing,
 * removing or reordering any row breaks the chain from that row on; the table's triggers refuse UPDATE, DELETE
 * and TRUNCATE as well.
 *
 * <p>Chaining needs one writer at a time, which a lock on {@code recovery_audit} gives. A two-phase
 * transaction must not take it: a branch left prepared keeps its locks until someone resolves it, and
 * every audited write, the recovery console's included, would wait behind it. So an entry written inside
 * such a transaction goes to {@code recovery_audit_intake}, in the transaction's own branch (it commits or
 * rolls back with the action it records), and joins the chain later, in a short local transaction of its own.
 */
@AreaApi
public class AuditTrail {

    /** The clock of the single-database mode, which has no transaction-manager name to qualify it with. */
    public static final String SINGLE_DATABASE_CLOCK = "jvm-utc";

    private static final Logger log = LoggerFactory.getLogger(AuditTrail.class);
    /** Intake entries chained per local transaction: the chain's lock is held for one batch at a time. */
    private static final int CHAIN_BATCH = 500;
    private static final int VERIFY_FETCH_SIZE = 1_000;
    private static final String ENTRY_COLUMNS = "seq, format, at, clock_source, actor, actor_roles, action, application_id,"
            + " lifecycle_no, definition_version, request_id, gtrid, detail, prev_hash, hash";
    private static final String RECORD_COLUMNS = "at, clock_source, actor, actor_roles, action, application_id, lifecycle_no,"
            + " definition_version, request_id, gtrid, detail";

    /**
     * When an intake entry joins the chain. A decision's entry waits for the {@code audit-chain} job (every few
     * seconds) or the next read of the trail: chaining it after each commit would lock {@code recovery_audit} once per
     * request and serialise every approval in the system on that lock. A forced or control action (a termination, a
     * repair, an archival batch) is rare and a DBA looks for it at once, so it is chained right after its commit.
     */
    public enum Chaining {
        BATCHED, AFTER_COMMIT
    }

    public record Verification(boolean intact, long entries, Long brokenAtSeq, String problem) {
    }

    private final JdbcTemplate jdbc;
    private final JdbcTemplate streaming;
    private final TransactionTemplate transaction;
    private final TransactionTemplate chaining;
    private final TransactionTemplate reading;
    private final Clock clock;
    private final String clockSource;

    /** {@code clockSource}: names {@code clock} in every entry, e.g. {@code jvm-utc@<transaction-manager name>}. */
    public AuditTrail(DataSource business, Clock clock, String clockSource) {
        this.jdbc = new JdbcTemplate(business);
        this.streaming = new JdbcTemplate(business);
        this.streaming.setFetchSize(VERIFY_FETCH_SIZE);
        DataSourceTransactionManager transactions = new DataSourceTransactionManager(business);
        this.transaction = new TransactionTemplate(transactions);
        // its own transaction even when called from another one's completion
        this.chaining = new TransactionTemplate(transactions);
        this.chaining.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        // a cursor needs a transaction (PostgreSQL fetches everything at once under autocommit)
        this.reading = new TransactionTemplate(transactions);
        this.reading.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        this.reading.setReadOnly(true);
        this.clock = clock;
        this.clockSource = clockSource;
    }

    /** The clock source an entry written beside {@code xa} names: its own, or the single-database mode's ({@code xa} null). */
    public static String clockSourceOf(AuditTrail xa) {
        return xa == null ? SINGLE_DATABASE_CLOCK : xa.clockSource;
    }

    /** The recovery console's and startup recovery's entries: about no application, by an operator or the service. */
    public AuditEntry append(String actor, String action, String gtrid, String detail) {
        return append(AuditRecord.control(actor, action, gtrid, detail));
    }

    /**
     * Appends one entry to the chain. Inside a local transaction on the same DataSource (the recovery
     * console's journal) the entry commits or rolls back with the change it records; otherwise it commits
     * on its own (a refusal, whose own transaction rolled back). Never called inside a two-phase transaction,
     * so the chain's lock is held only briefly.
     */
    public AuditEntry append(AuditRecord record) {
        return transaction.execute(status -> jdbc.execute((ConnectionCallback<AuditEntry>) connection ->
                appendOn(connection, clock.instant(), clockSource, record)));
    }

    /**
     * Records an entry on {@code connection}, inside the transaction it is part of (a two-phase one, or a draft's local
     * one), so that the action and its entry commit or roll back together; takes no lock that a branch left in doubt
     * could hold against anyone. The entry joins the chain as {@code chaining} says.
     */
    public void append(Connection connection, AuditRecord record, Chaining chaining) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(
                "insert into recovery_audit_intake (" + RECORD_COLUMNS + ") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            bind(insert, 1, clock.instant().truncatedTo(ChronoUnit.MICROS), clockSource, record);
            insert.executeUpdate();
        }
        if (chaining == Chaining.AFTER_COMMIT && TransactionSynchronizationManager.isSynchronizationActive()) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    chainQuietly();
                }
            });
        }
    }

    /**
     * Records an entry on {@code connection}, inside the caller's transaction, in either deployment: through the
     * intake ({@link #append(Connection, AuditRecord, Chaining)}) in the XA one; chained at once ({@link #appendOn})
     * in the single-database one, which has no two-phase transactions and no trail bean ({@code xa} null).
     */
    public static void appendWithin(AuditTrail xa, Connection connection, Instant now, AuditRecord record, Chaining chaining)
            throws SQLException {
        if (xa != null) {
            xa.append(connection, record, chaining);
        } else {
            appendOn(connection, now, SINGLE_DATABASE_CLOCK, record);
        }
    }

    /**
     * Appends to the chain on {@code connection}, in its local transaction: for {@link #chain()}, and for
     * the single-database mode, which has no two-phase transactions (and no recovery monitor).
     */
    public static AuditEntry appendOn(Connection connection, Instant now, String clockSource, AuditRecord record)
            throws SQLException {
        lockTheChain(connection);
        return chainOnto(connection, lastOf(connection), now, clockSource, record);
    }

    /**
     * Takes every committed intake entry into the chain, oldest first, in short local transactions of
     * {@value #CHAIN_BATCH} entries, each holding the chain's lock only while it appends.
     *
     * @return how many entries joined the chain
     */
    public int chain() {
        int total = 0;
        int chained;
        do {
            chained = chaining.execute(status -> jdbc.execute((ConnectionCallback<Integer>) this::chainBatch));
            total += chained;
        } while (chained == CHAIN_BATCH);
        return total;
    }

    private int chainBatch(Connection connection) throws SQLException {
        lockTheChain(connection);
        List<Intake> waiting = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement("select id, " + RECORD_COLUMNS
                + " from recovery_audit_intake where chained_seq is null order by id fetch first " + CHAIN_BATCH + " rows only");
                ResultSet row = select.executeQuery()) {
            while (row.next()) {
                waiting.add(new Intake(row.getLong("id"), row.getTimestamp("at").toInstant(), row.getString("clock_source"),
                        new AuditRecord(row.getString("actor"), row.getString("actor_roles"), row.getString("action"),
                                row.getObject("application_id", Long.class), row.getObject("lifecycle_no", Integer.class),
                                row.getString("definition_version"), row.getString("request_id"), row.getString("gtrid"),
                                row.getString("detail"))));
            }
        }
        AuditEntry last = lastOf(connection);
        try (PreparedStatement mark = connection.prepareStatement("update recovery_audit_intake set chained_seq = ? where id = ?")) {
            for (Intake entry : waiting) {
                last = chainOnto(connection, last, entry.at(), entry.clockSource(), entry.record());
                mark.setLong(1, last.seq());
                mark.setLong(2, entry.id());
                mark.executeUpdate();
            }
        }
        return waiting.size();
    }

    /** After a commit the action stands whether or not chaining works now: what is left waits for the next pass. */
    private void chainQuietly() {
        try {
            chain();
        } catch (RuntimeException e) {
            log.warn("audit entries stay in recovery_audit_intake until the next audit-chain pass: {}", e.toString());
        }
    }

    private record Intake(long id, Instant at, String clockSource, AuditRecord record) {
    }

    /** The newest entry, or null on an empty chain; read under the chain's lock. */
    private static AuditEntry lastOf(Connection connection) throws SQLException {
        try (Statement last = connection.createStatement(); ResultSet row = last.executeQuery(
                "select " + ENTRY_COLUMNS + " from recovery_audit order by seq desc fetch first 1 row only")) {
            return row.next() ? entry(row) : null;
        }
    }

    private static AuditEntry chainOnto(Connection connection, AuditEntry last, Instant now, String clockSource,
            AuditRecord record) throws SQLException {
        // PostgreSQL keeps microseconds: hash exactly what will be read back.
        Instant at = now.truncatedTo(ChronoUnit.MICROS);
        long seq = last == null ? 1 : last.seq() + 1;
        String prevHash = last == null ? AuditEntryFormat.GENESIS : last.hash();
        AuditEntry unhashed = new AuditEntry(seq, AuditEntryFormat.CURRENT, at, clockSource, record.actor(),
                record.actorRoles(), record.action(), record.applicationId(), record.lifecycleNo(), record.definitionVersion(),
                record.requestId(), record.gtrid(), record.detail(), prevHash, null);
        String hash = unhashed.recomputedHash();
        try (PreparedStatement insert = connection.prepareStatement("insert into recovery_audit (seq, format, prev_hash, hash, "
                + RECORD_COLUMNS + ") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            insert.setLong(1, seq);
            insert.setInt(2, AuditEntryFormat.CURRENT);
            insert.setString(3, prevHash);
            insert.setString(4, hash);
            bind(insert, 5, at, clockSource, record);
            insert.executeUpdate();
        }
        return new AuditEntry(seq, AuditEntryFormat.CURRENT, at, clockSource, record.actor(), record.actorRoles(),
                record.action(), record.applicationId(), record.lifecycleNo(), record.definitionVersion(), record.requestId(),
                record.gtrid(), record.detail(), prevHash, hash);
    }

    /** The {@link #RECORD_COLUMNS}, from parameter {@code first} on. */
    private static void bind(PreparedStatement statement, int first, Instant at, String clockSource, AuditRecord record)
            throws SQLException {
        statement.setTimestamp(first, Timestamp.from(at));
        statement.setString(first + 1, clockSource);
        statement.setString(first + 2, record.actor());
        statement.setString(first + 3, record.actorRoles());
        statement.setString(first + 4, record.action());
        if (record.applicationId() == null) {
            statement.setNull(first + 5, Types.BIGINT);
        } else {
            statement.setLong(first + 5, record.applicationId());
        }
        if (record.lifecycleNo() == null) {
            statement.setNull(first + 6, Types.INTEGER);
        } else {
            statement.setInt(first + 6, record.lifecycleNo());
        }
        statement.setString(first + 7, record.definitionVersion());
        statement.setString(first + 8, record.requestId());
        statement.setString(first + 9, record.gtrid());
        statement.setString(first + 10, record.detail());
    }

    private static AuditEntry entry(ResultSet row) throws SQLException {
        return new AuditEntry(row.getLong("seq"), row.getInt("format"), row.getTimestamp("at").toInstant(),
                row.getString("clock_source"), row.getString("actor"), row.getString("actor_roles"), row.getString("action"),
                row.getObject("application_id", Long.class), row.getObject("lifecycle_no", Integer.class),
                row.getString("definition_version"), row.getString("request_id"), row.getString("gtrid"),
                row.getString("detail"), row.getString("prev_hash"), row.getString("hash"));
    }

    /** One writer at a time, so every entry chains onto the true last one. Never inside a two-phase transaction. */
    private static void lockTheChain(Connection connection) throws SQLException {
        try (Statement lock = connection.createStatement()) {
            lock.execute("lock table recovery_audit in share row exclusive mode");
        }
    }

    /** The newest entries, after chaining what has committed meanwhile. */
    public List<AuditEntry> entries(int limit) {
        chainQuietly();
        return jdbc.query("select " + ENTRY_COLUMNS + " from recovery_audit order by seq desc fetch first ? rows only",
                (row, n) -> entry(row), limit);
    }

    /**
     * Recomputes the whole chain, after chaining what has committed meanwhile, and names the first entry whose
     * stored hashes do not match. Streams: one cursor in a read-only transaction, {@value #VERIFY_FETCH_SIZE} rows
     * at a time, only the previous entry's hash kept, so the memory it needs does not grow with the chain.
     */
    public Verification verify() {
        chainQuietly();
        return reading.execute(status -> {
            ChainCheck check = new ChainCheck();
            streaming.query("select " + ENTRY_COLUMNS + " from recovery_audit order by seq", check);
            return check.result();
        });
    }

    /** Checks each entry against its predecessor as the cursor hands it over; after a break it only counts. */
    private static final class ChainCheck implements RowCallbackHandler {

        private String expectedPrev = AuditEntryFormat.GENESIS;
        private long expectedSeq = 1;
        private long entries;
        private Long brokenAt;
        private String problem;

        @Override
        public void processRow(ResultSet row) throws SQLException {
            entries++;
            if (brokenAt != null) {
                return;
            }
            AuditEntry entry = entry(row);
            if (entry.seq() != expectedSeq) {
                broken(entry, "entry " + expectedSeq + " is missing");
            } else if (!entry.prevHash().equals(expectedPrev)) {
                broken(entry, "prev_hash does not match the hash of entry " + (entry.seq() - 1));
            } else if (!entry.recomputedHash().equals(entry.hash())) {
                broken(entry, "content does not match its hash: entry changed");
            } else {
                expectedPrev = entry.hash();
                expectedSeq++;
            }
        }

        private void broken(AuditEntry entry, String why) {
            brokenAt = entry.seq();
            problem = why;
        }

        Verification result() {
            return new Verification(brokenAt == null, entries, brokenAt, problem);
        }
    }
}
