package dev.lockstep.publishing.outbox;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * Health component {@code outbox}: OUT_OF_SERVICE (degraded) while an event has been due for longer
 * than {@code lockstep.publish.stuck-after} — no node is delivering, or the catalog keeps failing —
 * DOWN when the outbox cannot be read, UP otherwise.
 */
class OutboxHealthIndicator implements HealthIndicator {

    private final OutboxMonitor monitor;

    OutboxHealthIndicator(OutboxMonitor monitor) {
        this.monitor = monitor;
    }

    @Override
    public Health health() {
        OutboxStore.Lag lag;
        try {
            lag = monitor.recent();
        } catch (OutboxStore.OutboxUnavailable e) {
            return Health.down().withDetail("error", e.getMessage()).build();
        }
        return Health.status(monitor.stuck() ? Status.OUT_OF_SERVICE : Status.UP)
                .withDetail("byStatus", lag.byStatus())
                .withDetail("oldestPendingAgeSeconds", monitor.oldestPendingAge().toSeconds())
                .withDetail("oldestProcessingAgeSeconds", monitor.oldestProcessingAge().toSeconds())
                .withDetail("stuckAfter", monitor.stuckAfter().toString())
                .build();
    }
}
