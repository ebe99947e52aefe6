package dev.lockstep.history.retention;

import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Deletes finished rows of the append-only operational tables once they are older than their
 * retention, in batches of {@code batchSize}, each batch one autocommit statement on a plain
 * connection (never inside a use case's transaction, never holding locks for long). A row that may
 * still be needed is never deleted: a command whose intent is PREPARING or HEURISTIC, an intent still
 * PREPARING, anything whose global transaction has an open resolution (PROPOSED, APPROVED,
 * EXECUTING). The recovery audit trail is never purged: it is hash-chained and its triggers refuse it.
 */
public class RetentionPurge {

    private static final Logger log = LoggerFactory.getLogger(RetentionPurge.class);

    private static final String OPEN_RESOLUTION = """
            exists (select 1 from recovery_resolution r where r.gtrid = %s
                    and r.status in ('PROPOSED', 'APPROVED', 'EXECUTING'))""";

    private final JdbcTemplate business;
    private final RetentionProperties properties;
    private final Clock clock;
    private final MeterRegistry meters;

    public RetentionPurge(JdbcTemplate business, RetentionProperties properties, Clock clock, MeterRegistry meters) {
        this.business = business;
        this.properties = properties;
        this.clock = clock;
        this.meters = meters;
    }

    /** One purge run over every table; returns the rows deleted per table. */
    public Map<String, Integer> purge() {
        Instant now = clock.instant();
        Map<String, Integer> deleted = new LinkedHashMap<>();
        deleted.put("workflow_command", batches("workflow_command", "request_id", """
                command_status = 'SUCCEEDED' and updated_at < ?
                and not exists (select 1 from recovery_intent i where i.request_id = workflow_command.request_id
                    and (i.status in ('PREPARING', 'HEURISTIC') or %s))
                """.formatted(OPEN_RESOLUTION.formatted("i.gtrid")), cutoff(now, properties.workflowCommand())));
        deleted.put("recovery_intent", batches("recovery_intent", "id", """
                status in ('COMMITTED', 'ROLLED_BACK') and coalesce(completed_at, recorded_at) < ? and not %s
                """.formatted(OPEN_RESOLUTION.formatted("recovery_intent.gtrid")), cutoff(now, properties.recoveryIntent())));
        Timestamp heuristicCutoff = cutoff(now, properties.heuristic());
        deleted.put("recovery_heuristic_event", batches("recovery_heuristic_event", "id", """
                reported_at < ? and not %s
                """.formatted(OPEN_RESOLUTION.formatted("recovery_heuristic_event.gtrid")), heuristicCutoff));
        // a HEURISTIC intent goes with its events: until then it keeps its Idempotency-Key from being replayed
        deleted.merge("recovery_intent", batches("recovery_intent", "id", """
                status = 'HEURISTIC' and coalesce(completed_at, recorded_at) < ? and not %s
                """.formatted(OPEN_RESOLUTION.formatted("recovery_intent.gtrid")), heuristicCutoff), Integer::sum);
        deleted.forEach((table, rows) -> meters.counter("lockstep.retention.purged", "table", table).increment(rows));
        log.info("retention purge deleted {}", deleted);
        return deleted;
    }

    private int batches(String table, String key, String finishedAndOld, Timestamp cutoff) {
        // FETCH FIRST works on PostgreSQL and Oracle alike; the batch size is a validated setting, not input
        String statement = "delete from " + table + " where " + key + " in (select " + key + " from " + table + " where "
                + finishedAndOld + " fetch first " + properties.batchSize() + " rows only)";
        int total = 0;
        int batch;
        do {
            batch = business.update(statement, cutoff);
            total += batch;
        } while (batch == properties.batchSize());
        return total;
    }

    private static Timestamp cutoff(Instant now, Duration retention) {
        return Timestamp.from(now.minus(retention));
    }
}
