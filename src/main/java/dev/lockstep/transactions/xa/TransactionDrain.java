package dev.lockstep.transactions.xa;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.SmartLifecycle;
import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;

/**
 * The stop's wait for this node's own JTA transactions. On SIGTERM the web server first drains its requests
 * ({@code server.shutdown=graceful}, at most {@code spring.lifecycle.timeout-per-shutdown-phase}); a request that
 * outlasts that drain, or a background job's transaction, still runs. This lifecycle stops after the web drain
 * and before the web server, the engine, Atomikos and the pools go: it waits until every transaction the JTA
 * manager began has committed or rolled back, and every request still being answered has its answer written
 * ({@link RequestsInFlight}), for at most the transaction timeout (no transaction may run longer), so Atomikos's
 * forced shutdown that follows cuts no commit in half that could still finish, and the web server's stop closes no
 * connection still owed an answer. What is still running then is left to recovery (docs/operations.md, "Stopping a
 * node").
 */
final class TransactionDrain implements TransactionExecutionListener, SmartLifecycle {

    /** After the web server's graceful drain, before the web server stops. */
    static final int PHASE = WebServerApplicationContext.GRACEFUL_SHUTDOWN_PHASE
            - (WebServerApplicationContext.GRACEFUL_SHUTDOWN_PHASE - WebServerApplicationContext.START_STOP_LIFECYCLE_PHASE) / 2;

    private static final Logger log = LoggerFactory.getLogger(TransactionDrain.class);

    private final Set<TransactionExecution> inFlight = ConcurrentHashMap.newKeySet();
    private final RequestsInFlight requests;
    private final Duration limit;
    private volatile boolean running;

    TransactionDrain(RequestsInFlight requests, Duration limit) {
        this.requests = requests;
        this.limit = limit;
    }

    @Override
    public void afterBegin(TransactionExecution transaction, Throwable beginFailure) {
        if (beginFailure == null) {
            inFlight.add(transaction);
        }
    }

    @Override
    public void afterCommit(TransactionExecution transaction, Throwable commitFailure) {
        inFlight.remove(transaction);
    }

    @Override
    public void afterRollback(TransactionExecution transaction, Throwable rollbackFailure) {
        inFlight.remove(transaction);
    }

    @Override
    public void start() {
        running = true;
    }

    @Override
    public void stop() {
        running = false;
        long deadline = System.nanoTime() + limit.toNanos();
        if (!drained()) {
            log.info("waiting up to {} for {} transaction(s) and {} request(s) still in flight to finish", limit,
                    inFlight.size(), requests.answering());
        }
        while (!drained() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (!drained()) {
            log.warn("{} transaction(s) and {} request(s) still in flight after {}: the stop goes on, recovery resolves"
                    + " what they prepared", inFlight.size(), requests.answering(), limit);
        }
    }

    private boolean drained() {
        return inFlight.isEmpty() && requests.answering() == 0;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
