package dev.lockstep.transactions.businessonly;

import javax.sql.DataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.jta.JtaTransactionObject;
import org.springframework.transaction.support.DefaultTransactionStatus;

/**
 * The transaction manager of the Spring Data repositories' own method transactions (each repository
 * method is {@code @Transactional}, REQUIRED). Inside a business-only transaction a repository joins
 * it; everywhere else it is the JTA manager as before: it joins the use case's JTA transaction, or,
 * called outside any transaction, begins one. Without this, every repository call inside a business-only
 * transaction would ask the JTA manager, which would begin a JTA transaction of its own.
 */
class RepositoryTransactions implements PlatformTransactionManager {

    private final PlatformTransactionManager jta;
    private final PlatformTransactionManager businessOnly;
    private final DataSource businessOnlyPool;

    RepositoryTransactions(PlatformTransactionManager jta, PlatformTransactionManager businessOnly, DataSource businessOnlyPool) {
        this.jta = jta;
        this.businessOnly = businessOnly;
        this.businessOnlyPool = businessOnlyPool;
    }

    @Override
    public TransactionStatus getTransaction(TransactionDefinition definition) {
        return (BusinessOnlyTransactionManager.isActive(businessOnlyPool) ? businessOnly : jta).getTransaction(definition);
    }

    @Override
    public void commit(TransactionStatus status) {
        ownerOf(status).commit(status);
    }

    @Override
    public void rollback(TransactionStatus status) {
        ownerOf(status).rollback(status);
    }

    /** The JTA manager's statuses carry its transaction object; every other one came from the business-only manager. */
    private PlatformTransactionManager ownerOf(TransactionStatus status) {
        return status instanceof DefaultTransactionStatus made && made.getTransaction() instanceof JtaTransactionObject
                ? jta : businessOnly;
    }
}
