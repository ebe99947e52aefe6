package dev.lockstep.reconciliation;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.health.contributor.Health;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Metrics and health of reconciliation. Labels are the rule id only. The gauges read the incident and
 * application tables when scraped (plain connection, indexed counts), so they show the database's truth
 * even on a node that did not run the reconciliation.
 */
class ReconciliationSignals {

    static final String DIFFERENCES = "lockstep.reconciliation.differences";
    static final String REPAIRED = "lockstep.reconciliation.repaired";
    static final String OPEN_INCIDENTS = "lockstep.reconciliation.incidents.open";
    static final String OLDEST_INCIDENT = "lockstep.reconciliation.incident.oldest.age";
    static final String OLDEST_SUBMITTING = "lockstep.reconciliation.submitting.oldest.age";

    private final JdbcTemplate plain;
    private final Clock clock;
    private final Map<String, Counter> differences = new HashMap<>();
    private final Map<String, Counter> repaired = new HashMap<>();

    ReconciliationSignals(List<ReconciliationRule> rules, JdbcTemplate plain, MeterRegistry meters, Clock clock) {
        this.plain = plain;
        this.clock = clock;
        for (ReconciliationRule rule : rules) {
            differences.put(rule.id(), Counter.builder(DIFFERENCES).tag("rule", rule.id())
                    .description("Differences reconciliation found, per rule").register(meters));
            repaired.put(rule.id(), Counter.builder(REPAIRED).tag("rule", rule.id())
                    .description("Differences repaired automatically, per rule").register(meters));
            Gauge.builder(OPEN_INCIDENTS, () -> openIncidents(rule.id())).tag("rule", rule.id())
                    .description("Reconciliation incidents not yet closed, per rule").register(meters);
        }
        Gauge.builder(OLDEST_INCIDENT, () -> ageSeconds("select min(opened_at) from reconciliation_incident where state <> 'CLOSED'"))
                .baseUnit("seconds").description("Age of the oldest reconciliation incident not yet closed").register(meters);
        Gauge.builder(OLDEST_SUBMITTING, () -> ageSeconds("select min(updated_at) from application where approval_status = 'SUBMITTING'"))
                .baseUnit("seconds").description("Age of the oldest committed SUBMITTING application (should never exist)")
                .register(meters);
    }

    void differenceFound(String ruleId) {
        differences.get(ruleId).increment();
    }

    void repaired(String ruleId) {
        repaired.get(ruleId).increment();
    }

    private int openIncidents(String ruleId) {
        return plain.queryForObject("select count(*) from reconciliation_incident where rule_id = ? and state <> 'CLOSED'",
                Integer.class, ruleId);
    }

    private double ageSeconds(String oldestSql) {
        Timestamp oldest = plain.queryForObject(oldestSql, Timestamp.class);
        return oldest == null ? 0 : Duration.between(oldest.toInstant(), clock.instant()).toSeconds();
    }

    /**
     * Health component {@code reconciliation}: DOWN when the last run failed (nothing is being checked), UP otherwise,
     * with the open incidents as details: those are alerts for operators (Prometheus), not a reason to take the node
     * out of the load balancer. Asked through a probe ({@code ReconciliationConfiguration}).
     */
    Health health() {
        int open = plain.queryForObject("select count(*) from reconciliation_incident where state <> 'CLOSED'", Integer.class);
        List<Map<String, Object>> last = plain.queryForList(
                "select id, kind, state, finished_at from reconciliation_run where state in ('SUCCEEDED', 'FAILED') order by id desc fetch first 1 rows only");
        Health.Builder health = last.stream().anyMatch(run -> "FAILED".equals(run.get("state"))) ? Health.down() : Health.up();
        return health.withDetail("openIncidents", open)
                .withDetail("oldestOpenIncidentSeconds", ageSeconds("select min(opened_at) from reconciliation_incident where state <> 'CLOSED'"))
                .withDetail("lastRun", last.isEmpty() ? "none" : last.get(0).toString())
                .build();
    }
}
