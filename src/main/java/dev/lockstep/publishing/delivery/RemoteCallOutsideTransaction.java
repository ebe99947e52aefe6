package dev.lockstep.publishing.delivery;

import jakarta.transaction.Status;
import jakarta.transaction.SystemException;
import jakarta.transaction.TransactionManager;
import java.net.URI;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Refuses a remote call while a transaction is active on the calling thread. A call made inside an XA
 * transaction would hold both databases' locks for the length of a network round trip and could not
 * be undone if the transaction rolled back: work for another system is written to the outbox instead
 * and delivered after the commit. Every HTTP client of the service asks it before each request.
 */
@Component
public class RemoteCallOutsideTransaction {

    private final ObjectProvider<TransactionManager> jta;

    RemoteCallOutsideTransaction(ObjectProvider<TransactionManager> jta) {
        this.jta = jta;
    }

    /** Throws when the calling thread is inside a Spring-managed or a JTA transaction. */
    public void requireNoTransaction(URI target) {
        if (TransactionSynchronizationManager.isActualTransactionActive() || jtaTransactionActive()) {
            throw new RemoteCallInTransactionException(target);
        }
    }

    private boolean jtaTransactionActive() {
        TransactionManager manager = jta.getIfAvailable();
        try {
            return manager != null && manager.getStatus() != Status.STATUS_NO_TRANSACTION;
        } catch (SystemException e) {
            throw new IllegalStateException("cannot tell whether a JTA transaction is active", e);
        }
    }

    /** A programming error: the code path must move the call behind the commit (an outbox row). */
    public static class RemoteCallInTransactionException extends IllegalStateException {

        RemoteCallInTransactionException(URI target) {
            super("refused a remote call to " + target + " inside an active transaction: write an outbox row and deliver"
                    + " it after the commit instead");
        }
    }
}
