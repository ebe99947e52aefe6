package dev.lockstep.reconciliation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.support.Api;
import dev.lockstep.support.UseCaseIntegrationTest;
import org.junit.jupiter.api.Test;

/** Reconciliation's signals: its per-rule series and its health component. */
class ReconciliationSignalsTest extends UseCaseIntegrationTest {

    /** One series per rule, there before any incident (the rules and dashboards are checked in PrometheusRulesTest). */
    @Test
    void openIncidentsAreExportedPerRule() {
        Api.Response scrape = api.get("erin", "/actuator/prometheus", "text/plain");
        assertThat(scrape.status()).isEqualTo(200);
        assertThat(scrape.body()).contains("lockstep_reconciliation_incidents_open{rule=\"TWO_ACTIVE_INSTANCES\"}");
    }

    @Test
    void theHealthIndicatorReportsOpenIncidents() {
        Api.Response health = api.get("erin", "/actuator/health/reconciliation");
        assertThat(health.status()).as(health.toString()).isEqualTo(200);
        assertThat(health.json().get("details").has("openIncidents")).isTrue();
    }
}
