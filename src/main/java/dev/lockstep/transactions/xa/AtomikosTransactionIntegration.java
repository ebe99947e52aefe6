package dev.lockstep.transactions.xa;

import com.atomikos.icatch.jta.TransactionManagerImp;
import com.atomikos.icatch.jta.TransactionSynchronizationRegistryImp;
import dev.lockstep.platform.TransactionMode;
import io.agroal.api.transaction.TransactionAware;
import io.agroal.api.transaction.TransactionIntegration;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.Transaction;
import jakarta.transaction.TransactionManager;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.sql.SQLException;
import javax.transaction.xa.XAResource;

/**
 * Agroal's pool joined to Atomikos's JTA transactions: the first connection a transaction takes from the pool
 * is enlisted as a branch ({@link EnlistedBranch}), later ones in the same transaction get the same connection,
 * and it goes back to the pool after the transaction completes.
 */
final class AtomikosTransactionIntegration implements TransactionIntegration {

    private final String resourceName;
    private final TransactionMode mode;
    private final Object key = new Object();
    private final TransactionSynchronizationRegistry registry = new TransactionSynchronizationRegistryImp();

    AtomikosTransactionIntegration(String resourceName, TransactionMode mode) {
        this.resourceName = resourceName;
        this.mode = mode;
    }

    /** Asked first at every borrow, so a borrow outside any transaction is refused before a connection is taken. */
    @Override
    public TransactionAware getTransactionAware() throws SQLException {
        Transaction transaction = requireTransaction();
        return switch (status(transaction)) {
            case Status.STATUS_ACTIVE, Status.STATUS_MARKED_ROLLBACK -> (TransactionAware) registry.getResource(key);
            case Status.STATUS_ROLLING_BACK, Status.STATUS_ROLLEDBACK ->
                    throw new SQLException("The transaction has rolled back; no connection is handed out in it");
            default -> null;
        };
    }

    @Override
    public void associate(TransactionAware connection, XAResource xaResource) throws SQLException {
        Transaction transaction = requireTransaction();
        int status = status(transaction);
        if (status != Status.STATUS_ACTIVE) {
            throw new SQLException("The transaction is no longer active (JTA status " + status + ")");
        }
        try {
            if (registry.getResource(key) == null) {
                // A plain synchronization, not an interposed one: Atomikos 6 keeps interposed ones aside and registers
                // them only when its Transaction object is asked to commit or roll back, and registered that way the
                // connections of some transactions never came back (XaPoolTest#everyConnectionComesBack...).
                transaction.registerSynchronization(new ReturnToPool(connection));
                registry.putResource(key, connection);
                transaction.enlistResource(LocalCommitNegativeControl.inMode(mode,
                        new EnlistedBranch(resourceName, connection, new TimedXaResource(xaResource, resourceName))));
            } else {
                connection.transactionStart();
            }
        } catch (SQLException e) {
            throw e;
        } catch (Exception e) {
            throw new SQLException("Could not enlist " + resourceName + " in the transaction", e);
        }
        connection.transactionCheckCallback(AtomikosTransactionIntegration::transactionActive);
    }

    /** Agroal's check, when a connection is used, that the transaction it was enlisted in still runs. */
    private static boolean transactionActive() throws SQLException {
        Transaction now = current();
        return now != null && status(now) == Status.STATUS_ACTIVE;
    }

    @Override
    public boolean disassociate(TransactionAware connection) throws SQLException {
        Transaction transaction = current();
        if (transaction != null && status(transaction) == Status.STATUS_ACTIVE) {
            registry.putResource(key, null);
        }
        return true;
    }

    @Override
    public void addResourceRecoveryFactory(ResourceRecoveryFactory factory) {
        // recovery is Atomikos's, through the RecoverableDatabase registered for this pool
    }

    @Override
    public void removeResourceRecoveryFactory(ResourceRecoveryFactory factory) {
    }

    private Transaction requireTransaction() throws SQLException {
        Transaction transaction = current();
        if (transaction == null) {
            throw new SQLException("A JTA transaction is required but none was found (" + resourceName + ")");
        }
        return transaction;
    }

    private static Transaction current() throws SQLException {
        TransactionManager manager = TransactionManagerImp.getTransactionManager();
        if (manager == null) {
            return null;
        }
        try {
            return manager.getTransaction();
        } catch (Exception e) {
            throw new SQLException("Cannot read the current transaction", e);
        }
    }

    private static int status(Transaction transaction) throws SQLException {
        try {
            return transaction.getStatus();
        } catch (Exception e) {
            throw new SQLException("Cannot read the transaction's status", e);
        }
    }

    private record ReturnToPool(TransactionAware connection) implements Synchronization {

        @Override
        public void beforeCompletion() {
        }

        @Override
        public void afterCompletion(int status) {
            try {
                connection.transactionEnd();
            } catch (SQLException ignored) {
                // the pool flushes a connection whose end failed
            }
        }
    }
}
