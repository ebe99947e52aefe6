package dev.lockstep.transactions.contention;

import dev.lockstep.platform.AreaApi;
import dev.lockstep.platform.LockstepProperties;
import dev.lockstep.platform.StartupCheckFailure;
import dev.lockstep.platform.web.ApiException;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;

/**
 * How many use-case transactions begin at once on this node ({@code lockstep.actions.max-running}): with the embedded
 * database servers, which share this machine's cores, by default as many as it has cores. Each running transaction
 * keeps a service thread and a backend of each server busy with short statements; with more of them than cores the
 * threads and backends take turns on the cores at every round trip, and on two cores ten at once spent a third more CPU
 * per approval cycle than two (docs/performance.md, "Transactions running at once"). With databases the operator runs
 * on their own machines there is no default bound: the pools are.
 *
 * <p>A transaction waits for its turn only before it begins, holding no connection. While it waits for another one to
 * let go of an application (the row lock, the action fence: {@link #waitingForAnother}) it gives its turn to the next,
 * so a stuck application holds its waiters' connections ({@link ApplicationWaiters}) but none of the node's turns; after
 * the wait it takes a turn back without waiting, beyond the bound if none is free, since it may hold connections that
 * the running ones need.
 */
@Component
@AreaApi
public class RunningTransactions {

    static final String SETTING = "lockstep.actions.max-running";
    /** As long as a borrow from the XA pools may wait, then 503 like a full pool. */
    static final Duration MAX_WAIT = Duration.ofSeconds(10);

    private enum Turn { NONE, HELD, BEYOND_THE_BOUND }

    private final Semaphore turns;
    private final int limit;
    private final Duration maxWait;
    private final ThreadLocal<Turn> turn = ThreadLocal.withInitial(() -> Turn.NONE);

    @Autowired
    RunningTransactions(LockstepProperties properties, ActionWaitProperties actions, MeterRegistry meters) {
        this(actions.maxRunning() != null ? actions.maxRunning()
                : properties.runsEmbeddedDatabases() ? Runtime.getRuntime().availableProcessors() : Integer.MAX_VALUE, MAX_WAIT);
        Gauge.builder("lockstep.transactions.waiting.turn", turns, Semaphore::getQueueLength)
                .description("use-case transactions waiting for their turn to begin on this node (" + SETTING + ")")
                .register(meters);
    }

    RunningTransactions(int limit, Duration maxWait) {
        if (limit < 1) {
            throw new StartupCheckFailure(SETTING, "is " + limit + "; at least one transaction must be able to run.",
                    "set it to 1 or more, or leave it unset (with the embedded databases: the number of cores; else no bound).");
        }
        this.limit = limit;
        this.turns = new Semaphore(limit, true);
        this.maxWait = maxWait;
    }

    /** Runs {@code transaction} in its turn; a transaction begun inside another runs in the outer one's turn. */
    public <T> T inTurn(Supplier<T> transaction) {
        if (turn.get() != Turn.NONE) {
            return transaction.get();
        }
        waitForTurn();
        try {
            return transaction.get();
        } finally {
            giveUpTurn();
        }
    }

    /**
     * Gives the turn to the next transaction while this one waits for another; closing the wait takes a turn back
     * without waiting. Outside a turn (a timer job, a read) it changes nothing.
     */
    public Wait waitingForAnother() {
        if (turn.get() == Turn.NONE) {
            return () -> { };
        }
        giveUpTurn();
        return () -> turn.set(turns.tryAcquire() ? Turn.HELD : Turn.BEYOND_THE_BOUND);
    }

    private void waitForTurn() {
        try {
            if (!turns.tryAcquire(maxWait.toMillis(), TimeUnit.MILLISECONDS)) {
                throw ApiException.retryLater("NODE_BUSY", limit + " transactions ran on this node for "
                        + maxWait.toSeconds() + " s and none ended (" + SETTING + "); nothing was written."
                        + " Retry later with the same Idempotency-Key.");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.retryLater("NODE_BUSY", "Interrupted while waiting for a turn to run; nothing was written.");
        }
        turn.set(Turn.HELD);
    }

    private void giveUpTurn() {
        if (turn.get() == Turn.HELD) {
            turns.release();
        }
        turn.set(Turn.NONE);
    }

    /** The end of a wait for another transaction; never throws. */
    public interface Wait extends AutoCloseable {
        @Override
        void close();
    }
}
