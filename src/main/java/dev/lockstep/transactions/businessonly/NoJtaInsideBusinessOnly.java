package dev.lockstep.transactions.businessonly;

import javax.sql.DataSource;
import org.springframework.transaction.IllegalTransactionStateException;
import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;

/**
 * Registered on the JTA transaction manager: refuses to begin a JTA transaction while a business-only
 * transaction runs on the thread. Work that needs the engine inside one (a use case put on the local
 * path by mistake, or a read that grew an engine query) would otherwise commit the workflow database in
 * a transaction of its own, apart from the business writes; this way it fails and nothing commits.
 */
class NoJtaInsideBusinessOnly implements TransactionExecutionListener {

    private final DataSource businessOnlyPool;

    NoJtaInsideBusinessOnly(DataSource businessOnlyPool) {
        this.businessOnlyPool = businessOnlyPool;
    }

    @Override
    public void beforeBegin(TransactionExecution transaction) {
        if (BusinessOnlyTransactionManager.isActive(businessOnlyPool)) {
            throw new IllegalTransactionStateException("A JTA transaction (" + transaction.getTransactionName()
                    + ") was asked for inside a business-only transaction: work that touches the workflow database must"
                    + " run in a JTA use case from the start, not under " + BusinessOnlyTransactions.MANAGER + ".");
        }
    }
}
