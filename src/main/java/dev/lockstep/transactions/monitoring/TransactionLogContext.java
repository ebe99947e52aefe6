package dev.lockstep.transactions.monitoring;

import com.atomikos.icatch.CompositeTransaction;
import com.atomikos.icatch.CompositeTransactionManager;
import com.atomikos.icatch.config.Configuration;
import dev.lockstep.platform.AreaApi;
import java.util.Objects;
import org.slf4j.MDC;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Puts the current global transaction id and the business key into the logging context (SLF4J MDC
 * keys {@value #GTRID} and {@value #BUSINESS_KEY}) for as long as the JTA transaction runs, so that
 * every log line of a use case, Lockstep's, Hibernate's or the engine's, can be matched with the
 * transaction a DBA sees in {@code pg_prepared_xacts} or the Atomikos log, and with the application.
 *
 * <p>Contract, for use cases:
 * <ul>
 * <li>Call {@link #bind(String)} first thing inside the {@code @Transactional} use case method, with
 * the business key the engine gets too (the application id). Outside a Spring-managed JTA
 * transaction it throws {@link IllegalStateException}: a use case that is not transactional is a bug.
 * <li>Calling it again in the same transaction replaces the business key; the gtrid stays.
 * <li>Nothing to clean up: the keys are removed when the transaction completes (commit or rollback),
 * on the thread that ran it, and whatever the thread had in those keys before is put back. When the
 * transaction is suspended (a REQUIRES_NEW inside it) its keys are taken off until it resumes.
 * </ul>
 * The gtrid is Atomikos's global transaction id: the string whose bytes are the global part of every
 * XID sent to both databases (pgjdbc shows it base64-encoded in the gid of {@code pg_prepared_xacts}).
 * It starts with {@code lockstep.tm.unique-name}, so it also says which node ran the transaction. In
 * {@code lockstep.mode=single} the transaction is local and only the business key is bound.
 */
@AreaApi
public final class TransactionLogContext {

    public static final String GTRID = "gtrid";
    public static final String BUSINESS_KEY = "businessKey";

    private TransactionLogContext() {
    }

    public static void bind(String businessKey) {
        Objects.requireNonNull(businessKey, "businessKey");
        if (!TransactionSynchronizationManager.isSynchronizationActive()) {
            throw new IllegalStateException("TransactionLogContext.bind needs an active transaction: call it inside the"
                    + " @Transactional use case");
        }
        Binding binding = (Binding) TransactionSynchronizationManager.getResource(Binding.class);
        if (binding == null) {
            binding = new Binding(currentGtrid());
            TransactionSynchronizationManager.bindResource(Binding.class, binding);
            TransactionSynchronizationManager.registerSynchronization(binding);
        }
        binding.businessKey = businessKey;
        binding.apply();
    }

    /**
     * The global id of the XA transaction running on this thread (what the audit trail records beside an entry);
     * null under the single-database mode's local transaction: there is no global id.
     */
    public static String currentGtrid() {
        CompositeTransactionManager transactions = Configuration.getCompositeTransactionManager();
        CompositeTransaction transaction = transactions == null ? null : transactions.getCompositeTransaction();
        return transaction == null ? null : transaction.getTid();
    }

    /** One per transaction, found again through the synchronization resources while it is active. */
    private static final class Binding implements TransactionSynchronization {

        private final String gtrid;
        private final String previousGtrid = MDC.get(GTRID);
        private final String previousBusinessKey = MDC.get(BUSINESS_KEY);
        private String businessKey;

        Binding(String gtrid) {
            this.gtrid = gtrid;
        }

        void apply() {
            if (gtrid != null) {
                MDC.put(GTRID, gtrid);
            }
            MDC.put(BUSINESS_KEY, businessKey);
        }

        private void restore() {
            restore(GTRID, previousGtrid);
            restore(BUSINESS_KEY, previousBusinessKey);
        }

        private static void restore(String key, String previous) {
            if (previous == null) {
                MDC.remove(key);
            } else {
                MDC.put(key, previous);
            }
        }

        @Override
        public void suspend() {
            TransactionSynchronizationManager.unbindResource(Binding.class);
            restore();
        }

        @Override
        public void resume() {
            TransactionSynchronizationManager.bindResource(Binding.class, this);
            apply();
        }

        @Override
        public void afterCompletion(int status) {
            TransactionSynchronizationManager.unbindResourceIfPossible(Binding.class);
            restore();
        }
    }
}
