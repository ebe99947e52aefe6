package dev.lockstep.reconciliation;

import com.atomikos.icatch.jta.UserTransactionManager;
import dev.lockstep.support.PreparedBranchProbe;
import dev.lockstep.support.TestDatabases;
import java.util.Base64;
import java.util.List;
import javax.transaction.xa.Xid;

/**
 * Enlisted last in a global transaction: when asked to prepare, both database branches are prepared, and it
 * does what a DBA working from a stale runbook does — {@code ROLLBACK PREPARED} on the business branch with
 * plain SQL — then votes yes, so the coordinator commits the rest (Atomikos takes the vanished branch for
 * committed). The workflow commits, the business does not.
 */
class BusinessBranchRolledBackByHand {

    private final TestDatabases databases;
    private final PreparedBranchProbe probe;
    private volatile String rolledBack;

    BusinessBranchRolledBackByHand(TestDatabases databases) {
        this.databases = databases;
        this.probe = new PreparedBranchProbe(databases, this::rollBackBusinessBranch);
    }

    void enlistIn(UserTransactionManager transactionManager) {
        probe.enlistIn(transactionManager);
    }

    /** The gid of the business branch rolled back, or null if the probe never prepared. */
    String rolledBack() {
        return rolledBack;
    }

    private void rollBackBusinessBranch(Xid xid) {
        String gtrid = Base64.getEncoder().encodeToString(xid.getGlobalTransactionId());
        List<String> gids = databases.business().queryForList("select gid from pg_prepared_xacts where gid like ?", String.class,
                "%\\_" + gtrid + "\\_%");
        if (gids.size() != 1) {
            throw new IllegalStateException("expected one prepared business branch of " + gtrid + ", found " + gids);
        }
        databases.business().execute("ROLLBACK PREPARED '" + gids.get(0) + "'");
        rolledBack = gids.get(0);
    }
}
