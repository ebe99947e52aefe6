package dev.lockstep.transactions.xa.log;

import dev.lockstep.platform.AreaApi;
import dev.lockstep.platform.DatabaseVendor;
import javax.sql.DataSource;

/**
 * Where the coordinator log in the database ({@code lockstep.tm.log=database}) writes: a plain pool of its own to the
 * business database, and the transaction-manager name with the lease epoch this instance holds it under. Atomikos
 * instantiates {@link GroupCommitLogFactory} itself, outside Spring, so the node installs the target before Atomikos
 * starts (a {@code BeforeRecovery} step, once the lease is taken) and the factory fails clearly without one.
 */
@AreaApi
public record DatabaseLogTarget(DataSource dataSource, DatabaseVendor vendor, String tmName, long epoch) {

    private static volatile DatabaseLogTarget installed;

    public static void install(DatabaseLogTarget target) {
        installed = target;
    }

    static DatabaseLogTarget installed() {
        DatabaseLogTarget target = installed;
        if (target == null) {
            throw new IllegalStateException("lockstep.tm.log=database but no DatabaseLogTarget was installed before"
                    + " Atomikos started: the node's lease (NodeIdentityConfiguration) installs it");
        }
        return target;
    }
}
