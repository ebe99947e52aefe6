package dev.lockstep.platform.audit.evidence;

import com.zaxxer.hikari.HikariDataSource;
import dev.lockstep.platform.audit.AuditEntry;
import dev.lockstep.platform.audit.AuditEntryFormat;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.function.Consumer;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowCallbackHandler;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Reads the chain and its checkpoints and stores checkpoints, on a small plain pool of its own: an export that
 * streams for a minute must not hold a connection the intent journal needs on the request path. Only plain MVCC
 * reads: nothing here waits on a lock a prepared branch could hold. The SQL is the same on PostgreSQL and Oracle.
 */
class EvidenceStore implements AutoCloseable {

    private static final String ENTRY_COLUMNS = "seq, format, at, clock_source, actor, actor_roles, action, application_id,"
            + " lifecycle_no, definition_version, request_id, gtrid, detail, prev_hash, hash";
    private static final String CHECKPOINT_COLUMNS = "installation_id, entries, head_hash, at, signed_by, public_key, signature";
    /** Rows fetched per round trip while streaming; PostgreSQL streams only inside a transaction. */
    private static final int FETCH_SIZE = 500;

    private final HikariDataSource pool;
    private final JdbcTemplate jdbc;
    private final TransactionTemplate readOnly;

    EvidenceStore(HikariDataSource pool) {
        this.pool = pool;
        this.jdbc = new JdbcTemplate(pool);
        this.jdbc.setFetchSize(FETCH_SIZE);
        this.readOnly = new TransactionTemplate(new DataSourceTransactionManager(pool));
        this.readOnly.setReadOnly(true);
    }

    record Head(long seq, String hash) {
    }

    /** How many of the selected entries there are and where they start and end. */
    record Selection(long count, Long firstSeq, Long lastSeq) {
    }

    String installationId() {
        return jdbc.queryForObject("select id from audit_installation", String.class);
    }

    /** The chain's last entry, or (0, genesis) for an empty chain. */
    Head head() {
        return jdbc.query("select seq, hash from recovery_audit order by seq desc fetch first 1 row only",
                row -> row.next() ? new Head(row.getLong(1), row.getString(2)) : new Head(0, AuditEntryFormat.GENESIS));
    }

    long lastCheckpointEntries() {
        Long entries = jdbc.queryForObject("select max(entries) from audit_checkpoint", Long.class);
        return entries == null ? -1 : entries;
    }

    void insert(Checkpoint checkpoint) {
        jdbc.update("insert into audit_checkpoint (" + CHECKPOINT_COLUMNS + ") values (?, ?, ?, ?, ?, ?, ?)",
                checkpoint.installationId(), checkpoint.entries(), checkpoint.headHash(), Timestamp.from(checkpoint.at()),
                checkpoint.signedBy(), checkpoint.publicKey(), checkpoint.signature());
    }

    Selection ofApplication(long applicationId, long upToSeq) {
        return jdbc.queryForObject("select count(*), min(seq), max(seq) from recovery_audit where application_id = ? and seq <= ?",
                EvidenceStore::selection, applicationId, upToSeq);
    }

    /** Entries stamped in [from, to). */
    Selection between(Instant from, Instant to, long upToSeq) {
        return jdbc.queryForObject("select count(*), min(seq), max(seq) from recovery_audit where at >= ? and at < ? and seq <= ?",
                EvidenceStore::selection, Timestamp.from(from), Timestamp.from(to), upToSeq);
    }

    private static Selection selection(ResultSet row, int rowNum) throws SQLException {
        long count = row.getLong(1);
        return count == 0 ? new Selection(0, null, null) : new Selection(count, row.getLong(2), row.getLong(3));
    }

    /** The entry count of the first checkpoint at or after {@code seq}, or null when none covers it yet. */
    Long firstCheckpointCovering(long seq) {
        return jdbc.queryForObject("select min(entries) from audit_checkpoint where entries >= ?", Long.class, seq);
    }

    /** Checkpoints at or after {@code seq}, and the newest whatever its count, oldest first. */
    void checkpointsFrom(long seq, Consumer<Checkpoint> consumer) {
        jdbc.query("select " + CHECKPOINT_COLUMNS + " from audit_checkpoint where entries >= ?"
                + " or id = (select max(id) from audit_checkpoint) order by id", (RowCallbackHandler) row -> consumer.accept(
                new Checkpoint(row.getString(1), row.getLong(2), row.getString(3), row.getTimestamp(4).toInstant(), row.getString(5),
                        row.getString(6), row.getString(7))), seq);
    }

    /** Streams entries {@code first..last} in seq order. */
    void entries(long first, long last, Consumer<AuditEntry> consumer) {
        stream("select " + ENTRY_COLUMNS + " from recovery_audit where seq between ? and ? order by seq", consumer, first, last);
    }

    void entriesOf(long applicationId, long first, long last, Consumer<AuditEntry> consumer) {
        stream("select " + ENTRY_COLUMNS + " from recovery_audit where application_id = ? and seq between ? and ? order by seq",
                consumer, applicationId, first, last);
    }

    private void stream(String sql, Consumer<AuditEntry> consumer, Object... arguments) {
        readOnly.executeWithoutResult(status -> jdbc.query(sql, (RowCallbackHandler) row -> consumer.accept(entry(row)), arguments));
    }

    private static AuditEntry entry(ResultSet row) throws SQLException {
        long applicationId = row.getLong(8);
        Long application = row.wasNull() ? null : applicationId;
        int lifecycleNo = row.getInt(9);
        Integer lifecycle = row.wasNull() ? null : lifecycleNo;
        return new AuditEntry(row.getLong(1), row.getInt(2), row.getTimestamp(3).toInstant(), row.getString(4), row.getString(5),
                row.getString(6), row.getString(7), application, lifecycle, row.getString(10), row.getString(11), row.getString(12),
                row.getString(13), row.getString(14), row.getString(15));
    }

    @Override
    public void close() {
        pool.close();
    }
}
