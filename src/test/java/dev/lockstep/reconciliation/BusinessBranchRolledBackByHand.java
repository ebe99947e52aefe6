package dev.lockstep.reconciliation;

import dev.lockstep.support.PreparedBranchProbe;
import dev.lockstep.support.TestDatabases;
import java.util.Base64;
import java.util.List;
import javax.transaction.xa.Xid;

/**
 * Enlisted last in a global transaction: when asked to prepare, both database branches are prepared, and it
 * does what a DBA working from a stale runbook does — {@code ROLLBACK PREPARED} on the business branch with
 * plain SQL — then votes yes, so the coordinator commits the rest. The workflow commits, the business does not.
 */
class BusinessBranchRolledBackByHand extends PreparedBranchProbe {

    private final TestDatabases databases;
    private volatile String rolledBack;

    BusinessBranchRolledBackByHand(TestDatabases databases) {
        super(databases);
        this.databases = databases;
    }

    @Override
    public int prepare(Xid xid) {
        String gtrid = Base64.getEncoder().encodeToString(xid.getGlobalTransactionId());
        List<String> gids = databases.business().queryForList("select gid from pg_prepared_xacts where gid like ?", String.class,
                "%\\_" + gtrid + "\\_%");
        if (gids.size() != 1) {
            throw new IllegalStateException("expected one prepared business branch of " + gtrid + ", found " + gids);
        }
        databases.business().execute("ROLLBACK PREPARED '" + gids.get(0) + "'");
        rolledBack = gids.get(0);
        return super.prepare(xid);
    }

    String rolledBack() {
        return rolledBack;
    }
}
