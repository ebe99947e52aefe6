package dev.lockstep.publishing.outbox;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;

/** Per-attempt meters of the publisher; labels are the outcome only (no event or application ids). */
class PublishMetrics {

    private final Map<EventStatus, Counter> attempts = new EnumMap<>(EventStatus.class);
    private final Timer latency;

    PublishMetrics(MeterRegistry meters) {
        for (EventStatus outcome : new EventStatus[] {EventStatus.PUBLISHED, EventStatus.RETRY, EventStatus.FAILED}) {
            attempts.put(outcome, Counter.builder("lockstep.publish.attempts")
                    .description("Delivery attempts of outbox events by outcome")
                    .tag("outcome", outcome.name())
                    .register(meters));
        }
        latency = Timer.builder("lockstep.publish.latency")
                .description("From the approval that wrote the event to the catalog holding it")
                .publishPercentileHistogram()
                .register(meters);
    }

    void attempt(EventStatus outcome) {
        attempts.get(outcome).increment();
    }

    void published(Duration sinceApproval) {
        latency.record(sinceApproval);
    }
}
