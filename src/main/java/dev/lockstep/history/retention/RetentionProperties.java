package dev.lockstep.history.retention;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * How long finished rows of the append-only operational tables are kept (docs/operations.md, "Retention").
 *
 * @param enabled false registers no purge job at all
 * @param interval pause between two purge runs
 * @param batchSize rows deleted per statement (each its own short transaction)
 * @param workflowCommand finished Idempotency-Key records: a retry after this gets no replay
 * @param recoveryIntent COMMITTED / ROLLED_BACK intent journal rows
 * @param heuristic heuristic events and HEURISTIC intents (evidence of a disagreement a DBA repaired)
 */
@ConfigurationProperties("lockstep.retention")
public record RetentionProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue("1h") Duration interval,
        @DefaultValue("500") int batchSize,
        @DefaultValue("90d") Duration workflowCommand,
        @DefaultValue("90d") Duration recoveryIntent,
        @DefaultValue("365d") Duration heuristic) {
}
