package dev.lockstep.publishing.outbox;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * The outbox's lag as operators read it (seed 000, section 37), and the gauges built on it. A reading
 * is reused for a few seconds so that scrapes and health probes do not each run the lag queries.
 */
class OutboxMonitor {

    private static final Duration REUSE = Duration.ofSeconds(5);

    private final OutboxStore store;
    private final Duration stuckAfter;
    private final Clock clock;
    private OutboxStore.Lag latest;
    private Instant readAt;

    OutboxMonitor(OutboxStore store, Duration stuckAfter, Clock clock, MeterRegistry meters) {
        this.store = store;
        this.stuckAfter = stuckAfter;
        this.clock = clock;
        // PUBLISHED is no lag, and counting it would read every delivered event (lockstep.publish.attempts counts them)
        for (EventStatus status : EventStatus.values()) {
            if (status == EventStatus.PUBLISHED) {
                continue;
            }
            Gauge.builder("lockstep.outbox.events", this, monitor -> monitor.recent().byStatus().getOrDefault(status.name(), 0L))
                    .description("Outbox events not delivered yet, by status")
                    .tag("status", status.name())
                    .register(meters);
        }
        Gauge.builder("lockstep.outbox.oldest.pending.age", this, monitor -> seconds(monitor.oldestPendingAge()))
                .description("Age of the oldest event not yet delivered (PENDING or RETRY)")
                .baseUnit("seconds")
                .register(meters);
        Gauge.builder("lockstep.outbox.oldest.processing.age", this, monitor -> seconds(monitor.oldestProcessingAge()))
                .description("How long the longest-held lease has been held")
                .baseUnit("seconds")
                .register(meters);
    }

    /** A fresh reading, for the admin API. */
    synchronized OutboxStore.Lag read() {
        latest = store.lag(clock.instant());
        readAt = clock.instant();
        return latest;
    }

    synchronized OutboxStore.Lag recent() {
        if (latest == null || readAt.plus(REUSE).isBefore(clock.instant())) {
            return read();
        }
        return latest;
    }

    Duration oldestPendingAge() {
        return age(recent().oldestPendingCreatedAt());
    }

    Duration oldestProcessingAge() {
        return age(recent().oldestProcessingSince());
    }

    /** Due work older than {@code lockstep.publish.stuck-after}: nothing is delivering it. */
    boolean stuck() {
        return age(recent().oldestDueAt()).compareTo(stuckAfter) > 0;
    }

    Duration stuckAfter() {
        return stuckAfter;
    }

    private Duration age(Instant since) {
        return since == null ? Duration.ZERO : Duration.between(since, clock.instant());
    }

    private static double seconds(Duration duration) {
        return duration.toMillis() / 1000.0;
    }
}
