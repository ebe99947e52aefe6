package dev.lockstep.transactions.businessonly;

import dev.lockstep.platform.AreaApi;

/**
 * Work that reads or writes the business database alone has nothing for a coordinator to decide, yet
 * under the JTA manager Atomikos 6.0.0 writes and forces two coordinator-log records for every
 * transaction, one-phase and read-only ones included. Such work runs instead in a local transaction on
 * a plain pool of the business database, under the manager named {@link #MANAGER}:
 * {@code @Transactional(transactionManager = BusinessOnlyTransactions.MANAGER)}.
 *
 * <p>Only work that never touches the workflow database may use it (the todo and done lists, the
 * application reads, creating a draft); {@code architecture/ArchitectureTest} names the packages that
 * may, and at run time the manager refuses to begin inside another transaction while the JTA manager
 * refuses to begin inside it ({@link NoJtaInsideBusinessOnly}), so a use case that also needs the engine
 * fails instead of committing its two databases apart. In {@code lockstep.mode=single} the name is an
 * alias of the one local manager.
 */
@AreaApi
public final class BusinessOnlyTransactions {

    /** The bean name of the local transaction manager of the business database. */
    public static final String MANAGER = "businessOnlyTransactionManager";

    private BusinessOnlyTransactions() {
    }
}
