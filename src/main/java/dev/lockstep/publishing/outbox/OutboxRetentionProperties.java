package dev.lockstep.publishing.outbox;

import dev.lockstep.platform.StartupCheckFailure;
import java.time.Duration;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code lockstep.outbox.retention.*}: how long delivered events are kept (docs/operations.md, "Retention").
 *
 * @param enabled false registers no purge job on this node
 * @param interval pause between two purge runs
 * @param batchSize events deleted per transaction
 * @param published a PUBLISHED event delivered longer ago than this is deleted, unless it is its application's newest
 *        catalog publication
 */
@ConfigurationProperties("lockstep.outbox.retention")
public record OutboxRetentionProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue("1h") Duration interval,
        @DefaultValue("500") int batchSize,
        @DefaultValue("90d") Duration published) {

    /** Refuses settings the purge cannot work with, naming the setting and the fix. */
    void verify() {
        if (batchSize < 1 || batchSize > 10_000) {
            throw new StartupCheckFailure("lockstep.outbox.retention.batch-size", batchSize + " events per delete is out of range.",
                    "set a number of events per delete between 1 and 10000 (default 500)");
        }
        Map.of("lockstep.outbox.retention.interval", interval, "lockstep.outbox.retention.published", published)
                .forEach((setting, value) -> {
                    if (value.compareTo(Duration.ofMinutes(1)) < 0) {
                        throw new StartupCheckFailure(setting, value + " is below one minute.",
                                "set a duration of at least 1m, e.g. 90d for the retention or 1h for the interval");
                    }
                });
    }
}
