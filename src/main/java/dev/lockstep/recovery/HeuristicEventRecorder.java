package dev.lockstep.recovery;

import com.atomikos.icatch.event.Event;
import com.atomikos.icatch.event.EventListener;
import com.atomikos.icatch.event.transaction.ParticipantHeuristicEvent;
import com.atomikos.icatch.event.transaction.TransactionHeuristicEvent;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Timestamp;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Keeps the heuristic outcomes Atomikos reports (a resource committed or rolled back on its own, or
 * a mix), and those a use case met while committing ({@link #commitEndedHeuristically}), so the
 * monitor can show the transaction as an ANOMALY and the DBA can see it after the fact, and marks the
 * transaction's intent HEURISTIC, so its Idempotency-Key is not replayed as a success. Atomikos open
 * source only logs these as warnings otherwise.
 */
public class HeuristicEventRecorder implements EventListener {

    private static final Logger log = LoggerFactory.getLogger(HeuristicEventRecorder.class);

    private final JdbcTemplate business;
    private final String selfTm;
    private final Clock clock;
    private final MeterRegistry meters;

    HeuristicEventRecorder(JdbcTemplate business, String selfTm, Clock clock, MeterRegistry meters) {
        this.business = business;
        this.selfTm = selfTm;
        this.clock = clock;
        this.meters = meters;
    }

    @Override
    public void eventOccurred(Event event) {
        if (event instanceof ParticipantHeuristicEvent participant) {
            record(participant.transactionId, participant.participantUri, participant.state.name());
        } else if (event instanceof TransactionHeuristicEvent transaction) {
            record(transaction.transactionId, null, transaction.state.name());
        }
    }

    /**
     * A commit that ended heuristically while a use case waited for it: Atomikos's open-source build
     * publishes no event for that (only from recovery), so the use case that saw the exception reports it.
     *
     * @param outcome Spring's name of the outcome: mixed, unknown, committed
     */
    void commitEndedHeuristically(String gtrid, String outcome) {
        record(gtrid, "the commit of a use case", "HEUR_" + outcome.toUpperCase(Locale.ROOT));
    }

    private void record(String gtrid, String participant, String state) {
        log.error("LOCKSTEP-INDOUBT-ALERT class=HEURISTIC gtrid={} state={} participant={}", gtrid, state, participant);
        meters.counter("lockstep.recovery.heuristics", "state", state).increment();
        Timestamp now = Timestamp.from(clock.instant());
        business.update("""
                insert into recovery_heuristic_event (gtrid, participant, state, tm_name, reported_at) values (?, ?, ?, ?, ?)
                """, gtrid, participant, state, selfTm, now);
        // the intent journal's completion mark says COMMITTED (the decision); the truth is heuristic
        business.update("update recovery_intent set status = 'HEURISTIC', completed_at = coalesce(completed_at, ?) where gtrid = ?",
                now, gtrid);
    }

    /** The latest heuristic state per gtrid. */
    public Map<String, String> statesByGtrid() {
        Map<String, String> states = new HashMap<>();
        business.query("select gtrid, state from recovery_heuristic_event order by id", row -> {
            states.put(row.getString(1), row.getString(2));
        });
        return states;
    }

    public List<Map<String, Object>> recent(int limit) {
        return business.queryForList("""
                select gtrid, participant, state, tm_name, reported_at from recovery_heuristic_event order by id desc fetch first ? rows only
                """, limit);
    }
}
