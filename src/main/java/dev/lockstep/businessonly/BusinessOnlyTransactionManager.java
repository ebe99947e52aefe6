package dev.lockstep.businessonly;

import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.transaction.Status;
import jakarta.transaction.SystemException;
import jakarta.transaction.TransactionManager;
import javax.sql.DataSource;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.IllegalTransactionStateException;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * A local transaction of the business database: JPA on the business-only EntityManagerFactory, whose
 * connections come from a plain (non-XA) pool. Its EntityManager is exposed under the key of the
 * service's shared EntityManagerFactory, the one Spring Data repositories and
 * {@code @PersistenceContext} entity managers are bound to: inside this transaction they use the local
 * EntityManager, so the same repositories serve both paths and nothing is written twice.
 *
 * <p>It begins only where no other transaction runs. Joining a JTA transaction would put business
 * writes on a connection outside its XA branch, so a call from inside one is refused, as is one under
 * a JTA transaction that Spring's synchronization does not show.
 */
class BusinessOnlyTransactionManager extends JpaTransactionManager {

    private final EntityManagerFactory businessOnly;
    private final DataSource pool;
    private final TransactionManager jta;

    BusinessOnlyTransactionManager(EntityManagerFactory shared, EntityManagerFactory businessOnly, DataSource pool,
            TransactionManager jta) {
        super(shared);
        this.businessOnly = businessOnly;
        this.pool = pool;
        this.jta = jta;
    }

    /** Whether a business-only transaction runs on this thread: its connection is bound under the pool. */
    static boolean isActive(DataSource pool) {
        return TransactionSynchronizationManager.hasResource(pool);
    }

    @Override
    public void afterPropertiesSet() {
        super.afterPropertiesSet();
        // the shared factory reports the business XA pool as its DataSource; this transaction's connection is the plain pool's
        setDataSource(pool);
    }

    @Override
    protected Object doGetTransaction() {
        if (!isActive(pool) && (TransactionSynchronizationManager.isActualTransactionActive() || jtaTransactionRuns())) {
            throw new IllegalTransactionStateException("A business-only (local) transaction was asked for inside another"
                    + " transaction: its writes would escape that transaction's XA branch. Call it from outside any"
                    + " transaction, or leave it in the JTA transaction without " + BusinessOnlyTransactions.MANAGER + ".");
        }
        return super.doGetTransaction();
    }

    @Override
    protected EntityManager createEntityManagerForTransaction() {
        return businessOnly.createEntityManager();
    }

    private boolean jtaTransactionRuns() {
        try {
            return jta.getStatus() != Status.STATUS_NO_TRANSACTION;
        } catch (SystemException e) {
            throw new CannotCreateTransactionException("cannot read the JTA transaction status", e);
        }
    }
}
