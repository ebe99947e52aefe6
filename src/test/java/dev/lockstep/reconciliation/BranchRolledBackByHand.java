package dev.lockstep.reconciliation;

import com.atomikos.icatch.jta.UserTransactionManager;
import dev.lockstep.support.PreparedBranchProbe;
import dev.lockstep.support.TestDatabases;
import java.util.Base64;
import java.util.List;
import javax.transaction.xa.Xid;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Enlisted last in a global transaction: when asked to prepare, once both database branches are prepared (its
 * probe waits for them), it does what a DBA working from a stale runbook does — {@code ROLLBACK PREPARED} on one database's branch with
 * plain SQL — then votes yes, so the coordinator commits the rest (Atomikos takes the vanished branch for
 * committed). The other database commits, this one does not.
 */
class BranchRolledBackByHand {

    private final JdbcTemplate database;
    private final PreparedBranchProbe probe;
    private volatile String rolledBack;

    private BranchRolledBackByHand(TestDatabases databases, JdbcTemplate database) {
        this.database = database;
        this.probe = new PreparedBranchProbe(databases, this::rollBack);
    }

    static BranchRolledBackByHand onBusiness(TestDatabases databases) {
        return new BranchRolledBackByHand(databases, databases.business());
    }

    static BranchRolledBackByHand onWorkflow(TestDatabases databases) {
        return new BranchRolledBackByHand(databases, databases.workflow());
    }

    void enlistIn(UserTransactionManager transactionManager) {
        probe.enlistIn(transactionManager);
    }

    /** The gid of the branch rolled back, or null if the probe never prepared. */
    String rolledBack() {
        return rolledBack;
    }

    private void rollBack(Xid xid) {
        String gtrid = Base64.getEncoder().encodeToString(xid.getGlobalTransactionId());
        List<String> gids = database.queryForList("select gid from pg_prepared_xacts where gid like ?", String.class,
                "%\\_" + gtrid + "\\_%");
        if (gids.size() != 1) {
            throw new IllegalStateException("expected one prepared branch of " + gtrid + ", found " + gids);
        }
        database.execute("ROLLBACK PREPARED '" + gids.get(0) + "'");
        rolledBack = gids.get(0);
    }
}
