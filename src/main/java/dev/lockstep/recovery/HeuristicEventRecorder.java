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
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Keeps the heuristic outcomes Atomikos reports (a resource committed or rolled back on its own, or
 * a mix) so the monitor can show the transaction as an ANOMALY and the DBA can see it after the
 * fact, and marks the transaction's intent HEURISTIC, so its Idempotency-Key is not replayed as a
 * success. Atomikos open source only logs these as warnings otherwise.
 */
public class HeuristicEventRecorder implements EventListener {

    private static final Logger log = LoggerFactory.getLogger(HeuristicEventRecorder.class);

    private final JdbcTemplate business;
    private final IntentJournal intents;
    private final String selfTm;
    private final Clock clock;
    private final MeterRegistry meters;

    HeuristicEventRecorder(JdbcTemplate business, IntentJournal intents, String selfTm, Clock clock, MeterRegistry meters) {
        this.business = business;
        this.intents = intents;
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

    private void record(String gtrid, String participant, String state) {
        log.error("LOCKSTEP-INDOUBT-ALERT class=HEURISTIC gtrid={} state={} participant={}", gtrid, state, participant);
        meters.counter("lockstep.recovery.heuristics", "state", state).increment();
        business.update("""
                insert into recovery_heuristic_event (gtrid, participant, state, tm_name, reported_at) values (?, ?, ?, ?, ?)
                """, gtrid, participant, state, selfTm, Timestamp.from(clock.instant()));
        intents.markHeuristic(gtrid, state);
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
                select gtrid, participant, state, tm_name, reported_at from recovery_heuristic_event order by id desc limit ?
                """, limit);
    }
}
