package dev.lockstep.reconciliation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.support.Api;
import dev.lockstep.support.UseCaseIntegrationTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The alert rules and the dashboard under xa-config/ name only series the service really exports. */
class ReconciliationSignalsTest extends UseCaseIntegrationTest {

    private static final Pattern METRIC = Pattern.compile("lockstep_[a-z_]+");

    @Test
    void everyMetricTheAlertsAndTheDashboardNameIsExported() throws IOException {
        Set<String> named = new TreeSet<>();
        for (Path file : new Path[] {Path.of("xa-config/prometheus/reconciliation-alerts.yml"),
                Path.of("xa-config/grafana/reconciliation-dashboard.json")}) {
            Matcher metric = METRIC.matcher(Files.readString(file));
            while (metric.find()) {
                named.add(metric.group());
            }
        }
        assertThat(named).contains("lockstep_reconciliation_incidents_open", "lockstep_reconciliation_differences_total",
                "lockstep_reconciliation_repaired_total", "lockstep_reconciliation_incident_oldest_age_seconds",
                "lockstep_reconciliation_submitting_oldest_age_seconds");

        Api.Response scrape = api.get("erin", "/actuator/prometheus", "text/plain");
        assertThat(scrape.status()).isEqualTo(200);
        Set<String> exported = new TreeSet<>();
        for (String line : scrape.body().split("\n")) {
            Matcher metric = METRIC.matcher(line);
            if (!line.startsWith("#") && metric.lookingAt()) {
                exported.add(metric.group());
            }
        }
        assertThat(exported).containsAll(named);
        assertThat(scrape.body()).contains("lockstep_reconciliation_incidents_open{rule=\"TWO_ACTIVE_INSTANCES\"}");
    }

    @Test
    void theHealthIndicatorReportsOpenIncidents() {
        Api.Response health = api.get("erin", "/actuator/health/reconciliation");
        assertThat(health.status()).as(health.toString()).isEqualTo(200);
        assertThat(health.json().get("details").has("openIncidents")).isTrue();
    }
}
