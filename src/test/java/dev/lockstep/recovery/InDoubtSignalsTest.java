package dev.lockstep.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Status;

/** Health and the alert line from classified scans: which classes and ages turn them on. */
class InDoubtSignalsTest {

    static final Instant NOW = InDoubtClassifierTest.NOW;
    static final Duration ALERT_AGE = Duration.ofMinutes(5);

    @Test
    void youngOrphansAndOldInFlightTransactionsKeepHealthUp() {
        InDoubtMonitor.Snapshot snapshot = snapshot(orphan("young", 60), inFlight("own", 30));
        assertThat(InDoubtTransactionsHealthIndicator.health(snapshot, ALERT_AGE).getStatus()).isEqualTo(Status.UP);
    }

    @Test
    void anOrphanOlderThanTheAlertAgeTakesTheNodeOutOfService() {
        InDoubtMonitor.Snapshot snapshot = snapshot(orphan("old", 301));
        assertThat(InDoubtTransactionsHealthIndicator.health(snapshot, ALERT_AGE).getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
    }

    @Test
    void aDatabaseThatCouldNotBeScannedMakesHealthUnknownNotUp() {
        InDoubtMonitor.Snapshot snapshot = new InDoubtMonitor.Snapshot(NOW, List.of(), Map.of("business-db", "Connection refused"),
                Set.of(InDoubtClassifierTest.SELF));
        assertThat(InDoubtTransactionsHealthIndicator.health(snapshot, ALERT_AGE).getStatus()).isEqualTo(Status.UNKNOWN);
    }

    @Test
    void anOldAnomalyIsDown() {
        InDoubtTransaction anomaly = InDoubtClassifier.classify("gone.tmA",
                List.of(InDoubtClassifierTest.branch("workflow-db", "gone.tm", "A", NOW.minusSeconds(600))),
                facts(Map.of("gone.tmA", Map.of("business-db", "COMMITTED"))));
        assertThat(anomaly.classification()).isEqualTo(InDoubtClass.ANOMALY);
        InDoubtMonitor.Snapshot snapshot = snapshot(orphan("old", 301), anomaly);
        assertThat(InDoubtTransactionsHealthIndicator.health(snapshot, ALERT_AGE).getStatus()).isEqualTo(Status.DOWN);
    }

    @Test
    void theAlertLineHasAStableShape() {
        assertThat(InDoubtMonitor.alertLine(orphan("old", 301)))
                .isEqualTo("LOCKSTEP-INDOUBT-ALERT class=ORPHAN gtrid=gone.tmold age=301s owner=gone.tm"
                        + " recommendation=MANUAL branches=2");
    }

    private static InDoubtTransaction orphan(String suffix, long ageSeconds) {
        Instant at = NOW.minusSeconds(ageSeconds);
        return InDoubtClassifier.classify("gone.tm" + suffix, List.of(InDoubtClassifierTest.branch("business-db", "gone.tm",
                suffix, at), InDoubtClassifierTest.branch("workflow-db", "gone.tm", suffix, at)), facts(Map.of()));
    }

    private static InDoubtTransaction inFlight(String suffix, long ageSeconds) {
        Instant at = NOW.minusSeconds(ageSeconds);
        return InDoubtClassifier.classify(InDoubtClassifierTest.SELF + suffix, List.of(
                InDoubtClassifierTest.branch("business-db", InDoubtClassifierTest.SELF, suffix, at)), facts(Map.of()));
    }

    private static InDoubtClassifier.Facts facts(Map<String, Map<String, String>> prior) {
        return new InDoubtClassifier.Facts(InDoubtClassifierTest.SELF, Set.of(InDoubtClassifierTest.SELF), Map.of(), prior,
                Map.of(), Set.of("business-db", "workflow-db"), Map.of(), Duration.ofMinutes(6), NOW);
    }

    private static InDoubtMonitor.Snapshot snapshot(InDoubtTransaction... transactions) {
        return new InDoubtMonitor.Snapshot(NOW, List.of(transactions), Map.of(), Set.of(InDoubtClassifierTest.SELF));
    }
}
