package dev.lockstep.recovery;

import java.time.Duration;
import java.util.List;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * Health component {@code inDoubtTransactions}: DOWN while an anomaly is older than the alert age
 * (data of two databases may disagree), OUT_OF_SERVICE while only orphans are (locks held that
 * nobody will release), UP otherwise. Reads the latest scan; does not scan itself.
 */
class InDoubtTransactionsHealthIndicator implements HealthIndicator {

    private final InDoubtMonitor monitor;

    InDoubtTransactionsHealthIndicator(InDoubtMonitor monitor) {
        this.monitor = monitor;
    }

    @Override
    public Health health() {
        return health(monitor.latest(), monitor.alertAge());
    }

    static Health health(InDoubtMonitor.Snapshot snapshot, Duration alertAge) {
        List<InDoubtTransaction> overdue = InDoubtMonitor.overdue(snapshot, alertAge);
        // with a database unscanned, "nothing overdue" is not known: UNKNOWN instead of UP
        Status status = overdue.stream().anyMatch(tx -> tx.classification() == InDoubtClass.ANOMALY) ? Status.DOWN
                : !overdue.isEmpty() ? Status.OUT_OF_SERVICE : snapshot.scanErrors().isEmpty() ? Status.UP : Status.UNKNOWN;
        Health.Builder health = Health.status(status)
                .withDetail("scannedAt", snapshot.scannedAt().toString())
                .withDetail("inDoubt", snapshot.transactions().size())
                .withDetail("overdue", overdue.stream().map(tx -> tx.classification() + " " + tx.gtrid()).toList());
        if (!snapshot.scanErrors().isEmpty()) {
            health.withDetail("scanErrors", snapshot.scanErrors());
        }
        return health.build();
    }
}
