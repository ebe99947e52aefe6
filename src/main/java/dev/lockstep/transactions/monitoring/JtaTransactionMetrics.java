package dev.lockstep.transactions.monitoring;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;

/**
 * Times every JTA transaction the Spring transaction manager begins, from begin to its end, tagged
 * with how it ended: {@code lockstep_jta_transactions_seconds_count{outcome="committed"}} counts
 * commits (the two-phase commit over both databases included), {@code rolled_back} rollbacks,
 * {@code commit_failed} commits that threw (including heuristic outcomes Atomikos reports).
 * Atomikos's open-source event SPI publishes only heuristic events, so the count comes from Spring's
 * listener on the transaction manager.
 */
class JtaTransactionMetrics implements TransactionExecutionListener {

    private static final String NAME = "lockstep.jta.transactions";

    private final MeterRegistry registry;
    private final Map<TransactionExecution, Timer.Sample> running = new ConcurrentHashMap<>();

    JtaTransactionMetrics(MeterRegistry registry) {
        this.registry = registry;
        for (String outcome : new String[] {"committed", "rolled_back", "commit_failed", "rollback_failed"}) {
            timer(outcome); // listed from the start, so a dashboard shows 0 rather than nothing
        }
    }

    @Override
    public void afterBegin(TransactionExecution transaction, Throwable beginFailure) {
        if (beginFailure == null) {
            running.put(transaction, Timer.start(registry));
        }
    }

    @Override
    public void afterCommit(TransactionExecution transaction, Throwable commitFailure) {
        stop(transaction, commitFailure == null ? "committed" : "commit_failed");
    }

    @Override
    public void afterRollback(TransactionExecution transaction, Throwable rollbackFailure) {
        stop(transaction, rollbackFailure == null ? "rolled_back" : "rollback_failed");
    }

    private void stop(TransactionExecution transaction, String outcome) {
        Timer.Sample sample = running.remove(transaction);
        if (sample != null) {
            sample.stop(timer(outcome));
        }
    }

    private Timer timer(String outcome) {
        return Timer.builder(NAME).description("JTA transactions over both databases, by outcome")
                .tag("outcome", outcome).register(registry);
    }
}
