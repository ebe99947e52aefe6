package dev.lockstep.transactions.xa;

import dev.lockstep.platform.AreaApi;

/**
 * Startup work that must be done before the transaction manager starts and runs its first recovery
 * pass: the lease on this node's name (a pass under a name another live node uses would take that
 * node's XIDs), and reading the coordinator log as the previous run left it. Every bean of this type
 * is created before Atomikos, without the XA wiring naming the packages that provide them.
 */
@AreaApi
public interface BeforeRecovery {
}
