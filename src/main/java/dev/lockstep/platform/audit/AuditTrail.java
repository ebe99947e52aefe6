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
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The append-only record of every proposal, approval, execution and outcome. Each entry stores
 * {@code sha256(prev_hash + canonical entry)}, so changing, removing or reordering any row breaks
 * the chain from that row on; the table's triggers refuse UPDATE, DELETE and TRUNCATE as well.
 */
@AreaApi
public class AuditTrail {

    static final String GENESIS = "0".repeat(64);

    private final JdbcTemplate jdbc;
    private final TransactionTemplate transaction;
    private final Clock clock;

    public AuditTrail(DataSource business, Clock clock) {
        this.jdbc = new JdbcTemplate(business);
        this.transaction = new TransactionTemplate(new DataSourceTransactionManager(business));
        this.clock = clock;
    }

    public record Entry(long seq, Instant at, String actor, String action, String gtrid, String detail, String prevHash,
            String hash) {
    }

    public record Verification(boolean intact, long entries, Long brokenAtSeq, String problem) {
    }

    /**
     * Appends one entry. Inside a transaction on the same DataSource (see {@link ResolutionJournal}) the
     * entry commits or rolls back with the change it records; otherwise it commits on its own.
     */
    public Entry append(String actor, String action, String gtrid, String detail) {
        return transaction.execute(status -> jdbc.execute((ConnectionCallback<Entry>) connection ->
                append(connection, actor, action, gtrid, detail)));
    }

    /**
     * Appends on {@code connection}, inside the transaction it is part of (an operator's local
     * transaction, or a repair's XA branch), so that an audited action and its entry commit or roll back
     * together. The caller commits.
     */
    public Entry append(Connection connection, String actor, String action, String gtrid, String detail) throws SQLException {
        return appendOn(connection, clock.instant(), actor, action, gtrid, detail);
    }

    /**
     * As {@link #append(Connection, String, String, String, String)}, for a caller without this bean
     * (the single-database mode runs no recovery monitor but still audits a termination).
     */
    public static Entry appendOn(Connection connection, Instant now, String actor, String action, String gtrid, String detail)
            throws SQLException {
        // PostgreSQL keeps microseconds: hash exactly what will be read back.
        Instant at = now.truncatedTo(ChronoUnit.MICROS);
        try (Statement lock = connection.createStatement()) {
            // one writer at a time, so every entry chains onto the true last one
            lock.execute("lock table recovery_audit in share row exclusive mode");
        }
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


    public List<Entry> entries(int limit) {
        List<Entry> newestFirst = jdbc.query("""
                select seq, at, actor, action, gtrid, detail, prev_hash, hash from recovery_audit order by seq desc fetch first ? rows only
                """, (row, n) -> new Entry(row.getLong(1), row.getTimestamp(2).toInstant(), row.getString(3),
                row.getString(4), row.getString(5), row.getString(6), row.getString(7), row.getString(8)), limit);
        return newestFirst;
    }

    /** Recomputes the whole chain; names the first entry whose stored hashes do not match. */
    public Verification verify() {
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
