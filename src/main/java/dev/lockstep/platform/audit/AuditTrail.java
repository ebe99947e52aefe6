package dev.lockstep.platform.audit;

import dev.lockstep.platform.AreaApi;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The append-only record of every proposal, approval, execution and outcome. Each entry stores
 * {@code sha256(prev_hash + canonical entry)}, so changing, removing or reordering any row breaks
 * the chain from that row on; the table's triggers refuse UPDATE, DELETE and TRUNCATE as well.
 *
 * <p>Chaining needs one writer at a time, which a lock on {@code recovery_audit} gives. A two-phase
 * transaction must not take it: a branch left prepared keeps its locks until someone resolves it, and
 * every audited write, the recovery console's included, would wait behind it. So an entry written inside
 * such a transaction goes to {@code recovery_audit_intake}, in the transaction's own branch (it commits or
 * rolls back with the action it records), and joins the chain right after that commit, in a short local
 * transaction of its own. One committed later (a DBA or recovery commits the branch) is chained by the
 * {@code audit-chain} job or before the trail is next read.
 */
@AreaApi
public class AuditTrail {

    static final String GENESIS = "0".repeat(64);

    private final JdbcTemplate jdbc;
    private static final Logger log = LoggerFactory.getLogger(AuditTrail.class);

    private final TransactionTemplate transaction;
    private final TransactionTemplate chaining;
    private final Clock clock;

    public AuditTrail(DataSource business, Clock clock) {
        this.jdbc = new JdbcTemplate(business);
        this.transaction = new TransactionTemplate(new DataSourceTransactionManager(business));
        // its own transaction even when called from another one's completion
        this.chaining = new TransactionTemplate(new DataSourceTransactionManager(business));
        this.chaining.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        this.clock = clock;
    }

    public record Entry(long seq, Instant at, String actor, String action, String gtrid, String detail, String prevHash,
            String hash) {
    }

    public record Verification(boolean intact, long entries, Long brokenAtSeq, String problem) {
    }

    /**
     * Appends one entry to the chain. Inside a local transaction on the same DataSource (the recovery
     * console's journal) the entry commits or rolls back with the change it records; otherwise it commits
     * on its own. Never called inside a two-phase transaction, so the chain's lock is held only briefly.
     */
    public Entry append(String actor, String action, String gtrid, String detail) {
        return transaction.execute(status -> jdbc.execute((ConnectionCallback<Entry>) connection ->
                appendOn(connection, clock.instant(), actor, action, gtrid, detail)));
    }

    /**
     * Records an entry on {@code connection}, inside the two-phase transaction it is part of (an archival
     * batch, a repair, a termination, an outbox repair), so that the action and its entry commit or roll
     * back together; takes no lock that a branch left in doubt could hold against anyone. The entry joins
     * the chain after the commit.
     */
    public void append(Connection connection, String actor, String action, String gtrid, String detail) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(
                "insert into recovery_audit_intake (at, actor, action, gtrid, detail) values (?, ?, ?, ?, ?)")) {
            insert.setTimestamp(1, Timestamp.from(clock.instant().truncatedTo(ChronoUnit.MICROS)));
            insert.setString(2, actor);
            insert.setString(3, action);
            insert.setString(4, gtrid);
            insert.setString(5, detail);
            insert.executeUpdate();
        }
        if (TransactionSynchronizationManager.isSynchronizationActive()) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    chainQuietly();
                }
            });
        }
    }

    /**
     * Takes every committed intake entry into the chain, oldest first, in one short local transaction
     * that holds the chain's lock only while it appends.
     *
     * @return how many entries joined the chain
     */
    public int chain() {
        return chaining.execute(status -> jdbc.execute((ConnectionCallback<Integer>) connection -> {
            lockTheChain(connection);
            List<Intake> waiting = new ArrayList<>();
            try (Statement select = connection.createStatement(); ResultSet row = select.executeQuery(
                    "select id, at, actor, action, gtrid, detail from recovery_audit_intake where chained_seq is null order by id")) {
                while (row.next()) {
                    waiting.add(new Intake(row.getLong(1), row.getTimestamp(2).toInstant(), row.getString(3), row.getString(4),
                            row.getString(5), row.getString(6)));
                }
            }
            for (Intake entry : waiting) {
                Entry chained = appendOn(connection, entry.at(), entry.actor(), entry.action(), entry.gtrid(), entry.detail());
                try (PreparedStatement mark = connection.prepareStatement(
                        "update recovery_audit_intake set chained_seq = ? where id = ?")) {
                    mark.setLong(1, chained.seq());
                    mark.setLong(2, entry.id());
                    mark.executeUpdate();
                }
            }
            return waiting.size();
        }));
    }

    /** After a commit the action stands whether or not chaining works now: what is left waits for the next pass. */
    private void chainQuietly() {
        try {
            chain();
        } catch (RuntimeException e) {
            log.warn("audit entries stay in recovery_audit_intake until the next audit-chain pass: {}", e.toString());
        }
    }

    private record Intake(long id, Instant at, String actor, String action, String gtrid, String detail) {
    }

    /**
     * Records an entry on {@code connection}, inside the caller's transaction, in either deployment: through
     * {@code xa}'s intake ({@link #append(Connection, String, String, String, String)}) in the XA one; chained at once
     * ({@link #appendOn}) in the single-database one, which has no two-phase transactions and no trail bean ({@code xa}
     * null).
     */
    public static void appendWithin(AuditTrail xa, Connection connection, Instant now, String actor, String action,
            String detail) throws SQLException {
        if (xa != null) {
            xa.append(connection, actor, action, null, detail);
        } else {
            appendOn(connection, now, actor, action, null, detail);
        }
    }

    /**
     * Appends to the chain on {@code connection}, in its local transaction: for {@link #chain()}, and for
     * the single-database mode, which has no two-phase transactions (and no recovery monitor) but still
     * audits a termination.
     */
    public static Entry appendOn(Connection connection, Instant now, String actor, String action, String gtrid, String detail)
            throws SQLException {
        // PostgreSQL keeps microseconds: hash exactly what will be read back.
        Instant at = now.truncatedTo(ChronoUnit.MICROS);
        lockTheChain(connection);
        long seq = 1;
        String prevHash = GENESIS;
        try (Statement last = connection.createStatement();
                ResultSet row = last.executeQuery("select seq, hash from recovery_audit order by seq desc fetch first 1 row only")) {
            if (row.next()) {
                seq = row.getLong(1) + 1;
                prevHash = row.getString(2);
            }
        }
        String hash = hash(prevHash, canonical(seq, at, actor, action, gtrid, detail));
        try (PreparedStatement insert = connection.prepareStatement(
                "insert into recovery_audit (seq, at, actor, action, gtrid, detail, prev_hash, hash) values (?, ?, ?, ?, ?, ?, ?, ?)")) {
            insert.setLong(1, seq);
            insert.setTimestamp(2, Timestamp.from(at));
            insert.setString(3, actor);
            insert.setString(4, action);
            insert.setString(5, gtrid);
            insert.setString(6, detail);
            insert.setString(7, prevHash);
            insert.setString(8, hash);
            insert.executeUpdate();
        }
        return new Entry(seq, at, actor, action, gtrid, detail, prevHash, hash);
    }


    /** One writer at a time, so every entry chains onto the true last one. Never inside a two-phase transaction. */
    private static void lockTheChain(Connection connection) throws SQLException {
        try (Statement lock = connection.createStatement()) {
            lock.execute("lock table recovery_audit in share row exclusive mode");
        }
    }

    /** The newest entries, after chaining what has committed meanwhile. */
    public List<Entry> entries(int limit) {
        chainQuietly();
        List<Entry> newestFirst = jdbc.query("""
                select seq, at, actor, action, gtrid, detail, prev_hash, hash from recovery_audit order by seq desc fetch first ? rows only
                """, (row, n) -> new Entry(row.getLong(1), row.getTimestamp(2).toInstant(), row.getString(3),
                row.getString(4), row.getString(5), row.getString(6), row.getString(7), row.getString(8)), limit);
        return newestFirst;
    }

    /** Recomputes the whole chain, after chaining what has committed meanwhile; names the first entry whose stored hashes do not match. */
    public Verification verify() {
        chainQuietly();
        List<Entry> all = new ArrayList<>(jdbc.query("""
                select seq, at, actor, action, gtrid, detail, prev_hash, hash from recovery_audit order by seq
                """, (row, n) -> new Entry(row.getLong(1), row.getTimestamp(2).toInstant(), row.getString(3),
                row.getString(4), row.getString(5), row.getString(6), row.getString(7), row.getString(8))));
        String expectedPrev = GENESIS;
        long expectedSeq = 1;
        for (Entry entry : all) {
            if (entry.seq() != expectedSeq) {
                return new Verification(false, all.size(), entry.seq(), "entry " + expectedSeq + " is missing");
            }
            if (!entry.prevHash().equals(expectedPrev)) {
                return new Verification(false, all.size(), entry.seq(), "prev_hash does not match the hash of entry "
                        + (entry.seq() - 1));
            }
            String recomputed = hash(entry.prevHash(),
                    canonical(entry.seq(), entry.at(), entry.actor(), entry.action(), entry.gtrid(), entry.detail()));
            if (!recomputed.equals(entry.hash())) {
                return new Verification(false, all.size(), entry.seq(), "content does not match its hash: entry changed");
            }
            expectedPrev = entry.hash();
            expectedSeq++;
        }
        return new Verification(true, all.size(), null, null);
    }

    static String canonical(long seq, Instant at, String actor, String action, String gtrid, String detail) {
        // one field per line, fixed order; \n inside a field is escaped so fields cannot be shifted
        return String.join("\n", Long.toString(seq), at.toString(), escape(actor), escape(action),
                gtrid == null ? "-" : escape(gtrid), escape(detail));
    }

    private static String escape(String field) {
        return field.replace("\\", "\\\\").replace("\n", "\\n");
    }

    static String hash(String prevHash, String canonical) {
        try {
            MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
            return HexFormat.of().formatHex(sha256.digest((prevHash + canonical).getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is always present in the JDK", e);
        }
    }
}
