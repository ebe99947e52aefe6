package dev.lockstep.support;

import dev.lockstep.platform.DatabaseEndpoints;
import java.util.List;
import java.util.Map;
import org.springframework.boot.test.context.TestComponent;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Plain-SQL access to both databases, outside the code under test and outside any XA
 * transaction: what a test asserts is what the databases really hold.
 */
@TestComponent
public class TestDatabases {

    private final JdbcTemplate business;
    private final JdbcTemplate workflow;

    public TestDatabases(DatabaseEndpoints endpoints) {
        this.business = new JdbcTemplate(endpoints.business().plainDataSource());
        this.workflow = new JdbcTemplate(endpoints.workflow().plainDataSource());
    }

    public JdbcTemplate business() {
        return business;
    }

    public JdbcTemplate workflow() {
        return workflow;
    }

    /** Prepared (in-doubt) transactions on both servers: after a finished request there must be none. */
    public List<Map<String, Object>> preparedTransactions() {
        String sql = "select gid, prepared, database from pg_prepared_xacts";
        List<Map<String, Object>> rows = new java.util.ArrayList<>(business.queryForList(sql));
        rows.addAll(workflow.queryForList(sql));
        return rows;
    }

    /**
     * Waits until {@code branches} branches of {@code xid}'s global transaction are in {@code pg_prepared_xacts} (of
     * either server), at most {@code limit}. For a test participant that looks at the databases from inside its own
     * prepare: with parallel commit (lockstep.tm.parallel-commit) Atomikos prepares every branch at the same time, so
     * the database branches may still be preparing when it is asked.
     */
    public void awaitPrepared(javax.transaction.xa.Xid xid, int branches, java.time.Duration limit) {
        String prefix = xid.getFormatId() + "_" + java.util.Base64.getEncoder().encodeToString(xid.getGlobalTransactionId()) + "_";
        long deadline = System.nanoTime() + limit.toNanos();
        while (preparedTransactions().stream().filter(row -> row.get("gid").toString().startsWith(prefix)).count() < branches
                && System.nanoTime() < deadline) {
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    /** Runtime and history rows the engine holds for one business key (the application id). */
    public int engineRowsForBusinessKey(long applicationId) {
        String key = Long.toString(applicationId);
        Integer runtime = workflow.queryForObject(
                "select count(*) from act_ru_execution where business_key_ = ? or proc_inst_id_ in"
                        + " (select proc_inst_id_ from act_ru_execution where business_key_ = ?)", Integer.class, key, key);
        Integer history = workflow.queryForObject(
                "select count(*) from act_hi_procinst where business_key_ = ?", Integer.class, key);
        return runtime + history;
    }
}
