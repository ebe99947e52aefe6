package dev.lockstep.transactions.businessonly;

import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.transaction.Status;
import jakarta.transaction.SystemException;
import jakarta.transaction.TransactionManager;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.IllegalTransactionStateException;
import org.springframework.transaction.support.DefaultTransactionStatus;
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

    private static final Logger log = LoggerFactory.getLogger(BusinessOnlyTransactionManager.class);

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

    /**
     * A rollback that fails because the pool has already closed the connection (it does so after a connection-class
     * error: the server went down or ended the session) had nothing left to roll back: a session's open transaction
     * ends with the session. The caller then sees the failure that caused the rollback (a lost connection answers
     * 503 DATABASE_UNAVAILABLE) instead of this one, which would hide it behind a 500.
     */
    @Override
    protected void doRollback(DefaultTransactionStatus status) {
        try {
            super.doRollback(status);
        } catch (RuntimeException e) {
            // Spring reports it as a TransactionException or, through the JPA dialect, a DataAccessException
            if (!connectionClosed()) {
                throw e;
            }
            log.warn("the business-only transaction's connection was already closed, so its server ended the transaction"
                    + " with the session; the rollback's own failure: {}", e.toString());
        }
    }

    private boolean connectionClosed() {
        if (!(TransactionSynchronizationManager.getResource(pool) instanceof ConnectionHolder holder)) {
            return false;
        }
        try {
            return holder.getConnection().isClosed();
        } catch (SQLException | RuntimeException unknown) {
            return false;
        }
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
