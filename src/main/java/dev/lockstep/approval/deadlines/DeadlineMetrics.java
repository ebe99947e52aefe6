package dev.lockstep.approval.deadlines;

import dev.lockstep.approval.trail.ApplicationEvent.Kind;
import dev.lockstep.platform.DatabaseEndpoints;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Overdue work as operators read it: open overdue tasks per step (one series per configured step, so
 * the label set is bounded by the configuration), the age of the oldest one, and firings by kind
 * counted once their transaction has committed. The gauges read the todo projection on a plain
 * connection, outside any XA transaction, at most once per {@link #REUSE}.
 */
@Component
public class DeadlineMetrics {

    private static final Duration REUSE = Duration.ofSeconds(10);

    private final JdbcTemplate business;
    private final Clock clock;
    private final Map<Kind, Counter> fired = new EnumMap<>(Kind.class);
    private final Counter scanFailures;
    private Snapshot latest;

    DeadlineMetrics(DatabaseEndpoints endpoints, DeadlineProperties policies, MeterRegistry meters, Clock clock) {
        DataSource plain = endpoints.business().plainDataSource();
        this.business = new JdbcTemplate(plain);
        this.clock = clock;
        for (String step : policies.steps().keySet()) {
            Gauge.builder("lockstep.deadlines.overdue.tasks", this, metrics -> metrics.recent().overdueByStep().getOrDefault(step, 0L))
                    .description("Open tasks whose step deadline reminder has fired, by step")
                    .tag("step", step)
                    .register(meters);
        }
        Gauge.builder("lockstep.deadlines.overdue.oldest.age", this, metrics -> metrics.oldestOverdueAge().toMillis() / 1000.0)
                .description("How long the longest-overdue open task has been overdue")
                .baseUnit("seconds")
                .register(meters);
        for (Kind kind : List.of(Kind.REMINDED, Kind.ESCALATED, Kind.OVERDUE_REJECTED, Kind.OVERDUE_RETURNED)) {
            fired.put(kind, Counter.builder("lockstep.deadlines.fired").description("Committed step deadline firings by kind")
                    .tag("kind", kind.name()).register(meters));
        }
        scanFailures = Counter.builder("lockstep.deadlines.scan.failures")
                .description("Reminders and escalations the deadline scan failed to fire; each is tried again by the next scan")
                .register(meters);
    }

    /** A reminder, escalation or final deadline the scan could not fire this time (the next scan tries again). */
    void scanFailed() {
        scanFailures.increment();
    }

    /** Counts the firing when (and only if) the transaction it belongs to commits. */
    void firedOnCommit(Kind kind) {
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void afterCommit() {
                fired.get(kind).increment();
            }
        });
    }

    Duration oldestOverdueAge() {
        Instant oldest = recent().oldestOverdueSince();
        return oldest == null ? Duration.ZERO : Duration.between(oldest, clock.instant());
    }

    synchronized Snapshot recent() {
        if (latest == null || latest.readAt().plus(REUSE).isBefore(clock.instant())) {
            Map<String, Long> byStep = new HashMap<>();
            business.query("""
                    select task_definition_key, count(*) from task_projection
                     where state = 'OPEN' and overdue_since is not null group by task_definition_key""",
                    row -> {
                        byStep.put(row.getString(1), row.getLong(2));
                    });
            Timestamp oldest = business.queryForObject(
                    "select min(overdue_since) from task_projection where state = 'OPEN' and overdue_since is not null", Timestamp.class);
            latest = new Snapshot(byStep, oldest == null ? null : oldest.toInstant(), clock.instant());
        }
        return latest;
    }

    record Snapshot(Map<String, Long> overdueByStep, Instant oldestOverdueSince, Instant readAt) {
    }
}
