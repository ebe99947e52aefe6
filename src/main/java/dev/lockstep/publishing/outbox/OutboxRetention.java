package dev.lockstep.publishing.outbox;

import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The outbox's retention purge, a job of the cluster scheduler beside the operational tables' one
 * ({@code dev.lockstep.history.retention.RetentionPurge}) and metered and logged the same way. It deletes only PUBLISHED
 * events, a final state the publisher never leaves; an event still to be delivered, FAILED or re-queued is never
 * touched, nor the newest catalog publication of each application, which reconciliation compares with the catalog.
 * The catalog's inbox is the catalog's own: an event deleted here is never sent again, so no key it still needs goes.
 */
public class OutboxRetention {

    private static final Logger log = LoggerFactory.getLogger(OutboxRetention.class);

    private final OutboxStore store;
    private final OutboxRetentionProperties properties;
    private final Clock clock;
    private final MeterRegistry meters;

    OutboxRetention(OutboxStore store, OutboxRetentionProperties properties, Clock clock, MeterRegistry meters) {
        this.store = store;
        this.properties = properties;
        this.clock = clock;
        this.meters = meters;
    }

    /** One purge run; returns the events deleted. */
    public int purge() {
        int deleted = store.purgePublished(clock.instant().minus(properties.published()), properties.batchSize());
        meters.counter("lockstep.retention.purged", "table", "outbox_event").increment(deleted);
        log.info("outbox retention purge deleted {} published events", deleted);
        return deleted;
    }
}
