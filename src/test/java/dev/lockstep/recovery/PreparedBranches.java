package dev.lockstep.recovery;

import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.platform.DatabaseSettings;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.XAConnection;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;
import org.postgresql.xa.PGXADataSource;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Leaves real prepared transactions behind, the way a halted coordinator would: through pgjdbc's
 * own XAResource (start, work, end, prepare, then the connection just goes away), so the gid in
 * pg_prepared_xacts is exactly what pgjdbc writes for an Atomikos-shaped XID.
 */
public final class PreparedBranches {

    private static final AtomicLong COUNTER = new AtomicLong(System.nanoTime() % 1_000_000);

    private final DatabaseEndpoints endpoints;

    public PreparedBranches(DatabaseEndpoints endpoints) {
        this.endpoints = endpoints;
    }

    /** An Atomikos-like XID of the node {@code tm}: gtrid = tm + millis + counter, bqual = tm + counter. */
    static Xid atomikosXid(String tm, String gtrid) {
        return xid(1096044365, gtrid, tm + COUNTER.incrementAndGet());
    }

    static String newGtrid(String tm) {
        return tm + System.currentTimeMillis() + COUNTER.incrementAndGet();
    }

    public static Xid xid(int formatId, String gtrid, String bqual) {
        byte[] g = gtrid.getBytes(StandardCharsets.US_ASCII);
        byte[] b = bqual.getBytes(StandardCharsets.US_ASCII);
        return new Xid() {
            @Override
            public int getFormatId() {
                return formatId;
            }

            @Override
            public byte[] getGlobalTransactionId() {
                return g;
            }

            @Override
            public byte[] getBranchQualifier() {
                return b;
            }
        };
    }

    /** Prepares a branch on the business database that inserted an application row (so it locks that table). */
    public void prepareOnBusiness(Xid xid) throws Exception {
        prepare(endpoints.business(), xid, """
                insert into application (title, asset_id, amount, risk_level, sensitive, applicant_id, approval_status,
                    publish_status, created_at, updated_at)
                values ('in-doubt test', 1, 10, 'LOW', false, 'alice', 'APPROVING', 'NOT_STARTED', now(), now())
                """);
    }

    /** Prepares a branch on the workflow database; it holds an advisory lock, never touching ACT_* tables. */
    public void prepareOnWorkflow(Xid xid) throws Exception {
        prepare(endpoints.workflow(), xid, "select pg_advisory_xact_lock_shared(4242)");
    }

    /** The work a branch of the service does, given its connection (the production code's own statements). */
    public interface BranchWork {
        void on(Connection connection) throws Exception;
    }

    /** Prepares a branch on the business database that did {@code work}, as a halted node's branch would stay. */
    public void prepareOnBusiness(Xid xid, BranchWork work) throws Exception {
        prepare(endpoints.business(), xid, work);
    }

    private static void prepare(DatabaseSettings settings, Xid xid, String sql) throws Exception {
        prepare(settings, xid, connection -> {
            try (Statement statement = connection.createStatement()) {
                statement.execute(sql);
            }
        });
    }

    private static void prepare(DatabaseSettings settings, Xid xid, BranchWork work) throws Exception {
        PGXADataSource dataSource = new PGXADataSource();
        dataSource.setUrl(settings.url());
        dataSource.setUser(settings.username());
        dataSource.setPassword(settings.password() == null ? "" : settings.password());
        XAConnection xaConnection = dataSource.getXAConnection();
        try {
            XAResource resource = xaConnection.getXAResource();
            resource.start(xid, XAResource.TMNOFLAGS);
            try (Connection connection = xaConnection.getConnection()) {
                work.on(connection);
            }
            resource.end(xid, XAResource.TMSUCCESS);
            resource.prepare(xid);
        } finally {
            xaConnection.close();
        }
    }

    /** Rolls back everything left prepared on both databases, so later test classes start clean. */
    public static void rollBackAll(JdbcTemplate... databases) {
        for (JdbcTemplate database : databases) {
            for (String gid : database.queryForList("select gid from pg_prepared_xacts where database = current_database()",
                    String.class)) {
                database.execute("rollback prepared '" + gid.replace("'", "''") + "'");
            }
        }
    }
}
