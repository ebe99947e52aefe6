package dev.lockstep.platform.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.support.Api;
import dev.lockstep.support.UseCaseIntegrationTest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The alert rules, their promtool unit tests and the dashboards under xa-config/ name only series the
 * running service exports (so a renamed metric fails the build), and Prometheus's own promtool accepts the
 * rules and passes their tests (Debian's prometheus package; .ci/run installs it, else that test is skipped).
 */
class PrometheusRulesTest extends UseCaseIntegrationTest {

    private static final Path RULES = Path.of("xa-config/prometheus");
    private static final Path DASHBOARDS = Path.of("xa-config/grafana");
    private static final Pattern METRIC = Pattern.compile("lockstep_[a-z_]+");

    @Test
    void everyMetricTheRulesTheirTestsAndTheDashboardsNameIsExported() throws IOException {
        Set<String> named = new TreeSet<>();
        for (Path file : Stream.concat(files(RULES, ".yml").stream(), files(DASHBOARDS, ".json").stream()).toList()) {
            Matcher metric = METRIC.matcher(Files.readString(file));
            while (metric.find()) {
                named.add(metric.group());
            }
        }
        // each signal of docs/operations.md, "Alerts", has its rule and its panel
        assertThat(named).contains("lockstep_recovery_indoubt", "lockstep_recovery_indoubt_oldest_age_seconds",
                "lockstep_recovery_orphans", "lockstep_recovery_anomalies", "lockstep_jta_heuristics_total",
                "lockstep_outbox_events", "lockstep_outbox_oldest_pending_age_seconds", "lockstep_deadlines_overdue_tasks",
                "lockstep_deadlines_overdue_oldest_age_seconds", "lockstep_reconciliation_incidents_open",
                "lockstep_recovery_startup_seconds", "lockstep_recovery_takeovers_total");

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
    }

    @Test
    void promtoolAcceptsTheRulesAndPassesTheirTests() throws Exception {
        Assumptions.assumeTrue(promtoolAnswers(), "promtool is not installed (Debian package prometheus; .ci/run installs it)");
        List<String> check = new ArrayList<>(List.of("promtool", "check", "rules"));
        files(RULES, "-alerts.yml").forEach(file -> check.add(file.toString()));
        assertThat(check).hasSizeGreaterThan(3);
        run(check);

        List<String> test = new ArrayList<>(List.of("promtool", "test", "rules"));
        files(RULES.resolve("tests"), "-test.yml").forEach(file -> test.add(file.toString()));
        // every rule file has its tests
        assertThat(test).hasSize(check.size());
        run(test);
    }

    /** The files under {@code directory} (its subdirectories too) whose name ends with {@code ending}. */
    private static List<Path> files(Path directory, String ending) throws IOException {
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(file -> file.getFileName().toString().endsWith(ending)).sorted().toList();
        }
    }

    private static boolean promtoolAnswers() {
        try {
            Process version = new ProcessBuilder("promtool", "--version").redirectErrorStream(true).start();
            return version.waitFor(30, TimeUnit.SECONDS) && version.exitValue() == 0;
        } catch (IOException notOnThePath) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void run(List<String> command) throws IOException, InterruptedException {
        Process promtool = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(promtool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(promtool.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(promtool.exitValue()).as(String.join(" ", command) + "\n" + output).isZero();
    }
}
