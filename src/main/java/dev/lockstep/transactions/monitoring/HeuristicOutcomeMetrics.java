package dev.lockstep.transactions.monitoring;

import com.atomikos.icatch.event.Event;
import com.atomikos.icatch.event.EventListener;
import com.atomikos.icatch.event.transaction.ParticipantHeuristicEvent;
import com.atomikos.icatch.event.transaction.TransactionHeuristicEvent;
import com.atomikos.recovery.TxState;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Counts and logs heuristic outcomes, the only events Atomikos's open-source edition publishes: a
 * transaction or one of its branches ended other than the coordinator decided (committed or rolled
 * back on its own, or unknown). {@code lockstep_jta_heuristics_total{scope="transaction"|"participant",
 * state=...}} should stay at zero; each one needs a look from a DBA.
 *
 * <p>Atomikos finds its listeners with the ServiceLoader (META-INF/services), so this instance is not
 * a Spring bean: it counts into Micrometer's global registry, to which Boot adds the application's
 * registries (Prometheus included). Atomikos registers a fresh instance each time it starts in a JVM;
 * equality by class keeps that to one listener.
 */
public class HeuristicOutcomeMetrics implements EventListener {

    private static final Logger log = LoggerFactory.getLogger(HeuristicOutcomeMetrics.class);
    static final String NAME = "lockstep.jta.heuristics";
    private static final String[] SCOPES = {"transaction", "participant"};

    /**
     * Every series this listener can count, at zero from the start: an alert on {@code increase()} (xa-config/prometheus/)
     * then sees the first heuristic outcome too, where a series that appears at 1 would show no increase.
     */
    static void registerAtZero(MeterRegistry registry) {
        for (String scope : SCOPES) {
            for (TxState state : TxState.values()) {
                if (state.isHeuristic()) {
                    Counter.builder(NAME).tag("scope", scope).tag("state", state.name()).register(registry);
                }
            }
        }
    }

    @Override
    public void eventOccurred(Event event) {
        if (event instanceof TransactionHeuristicEvent heuristic) {
            record("transaction", heuristic.transactionId, String.valueOf(heuristic.state), heuristic.toString());
        } else if (event instanceof ParticipantHeuristicEvent heuristic) {
            record("participant", heuristic.transactionId, String.valueOf(heuristic.state), heuristic.toString());
        }
    }

    private static void record(String scope, String gtrid, String state, String description) {
        Metrics.counter(NAME, "scope", scope, "state", state).increment();
        try (MDC.MDCCloseable ignored = MDC.putCloseable(TransactionLogContext.GTRID, gtrid)) {
            log.error("Heuristic outcome ({}): {}. The databases may disagree on this transaction: check both"
                    + " (pg_prepared_xacts, the application and its ACT_* rows) and the recovery console.", state, description);
        }
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof HeuristicOutcomeMetrics;
    }

    @Override
    public int hashCode() {
        return HeuristicOutcomeMetrics.class.hashCode();
    }
}
