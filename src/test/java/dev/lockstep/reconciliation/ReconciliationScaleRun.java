package dev.lockstep.reconciliation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.support.Api;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.TestDatabases;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * Measurement, not a CI test (its name ends in Run, so surefire's defaults leave it out): a consistent business database
 * of {@code bench.reconciliation.applications} (100,000) applications, seeded with one INSERT ... SELECT into this
 * context's throwaway embedded databases, then one full sweep and one incremental run through the API, each bounded by
 * the table or {@code bench.reconciliation.max-duration} (3h), whichever comes first, as production bounds a run.
 * Reports time per run and applications per second (docs/performance.md) and asserts only that the runs scanned and
 * none showed a difference.
 *
 * <p>Run (surefire:test alone, so that no second execution of the plugin runs it again):
 * {@code nice -n 5 mvn -o test-compile surefire:test -Dtest=ReconciliationScaleRun -Dsurefire.failIfNoSpecifiedTests=false}
 */
@LockstepIntegrationTest
class ReconciliationScaleRun {

    static final int APPLICATIONS = Integer.getInteger("bench.reconciliation.applications", 100_000);
    static final String MAX_DURATION = System.getProperty("bench.reconciliation.max-duration", "3h");

    @DynamicPropertySource
    static void unbounded(DynamicPropertyRegistry properties) {
        properties.add("lockstep.reconciliation.max-applications", () -> Integer.toString(APPLICATIONS));
        properties.add("lockstep.reconciliation.max-duration", () -> MAX_DURATION);
    }

    @Autowired
    Api api;
    @Autowired
    TestDatabases db;

    @Test
    void aConsistentDatabaseOfAHundredThousandApplicationsShowsNoDifference() throws Exception {
        Instant seeding = Instant.now();
        // decided and draft applications in the shares of a long-running system; none has a process run left
        db.business().update("""
                insert into application (title, asset_id, amount, risk_level, sensitive, applicant_id, approval_status,
                       publish_status, lifecycle_no, created_at, updated_at)
                select 'bench ' || g, 42, 100, 'LOW', false, 'alice',
                       (array['DRAFT', 'APPROVED', 'REJECTED', 'CANCELED'])[1 + g % 4], 'NOT_STARTED', case when g % 4 = 0 then 0 else 1 end,
                       now() - interval '1 day', now() - interval '1 day'
                  from generate_series(1, ?) g
                """, APPLICATIONS);
        db.business().execute("analyze application");
        Duration seeded = Duration.between(seeding, Instant.now());

        Map<String, Object> full = run("FULL");
        Map<String, Object> incremental = run("INCREMENTAL");

        String report = """
                | run | applications scanned | time | applications/s | differences |
                |---|---|---|---|---|
                %s
                %s

                seeded %d applications by SQL in %d ms; max-duration per run %s
                """.formatted(row(full), row(incremental), APPLICATIONS, seeded.toMillis(), MAX_DURATION);
        System.out.println(report);
        Path output = Path.of("target/bench");
        Files.createDirectories(output);
        Files.writeString(output.resolve("reconciliation-scale.md"), report);
        for (Map<String, Object> run : List.of(full, incremental)) {
            assertThat(((Number) run.get("applications_scanned")).intValue()).isPositive();
            assertThat(run.get("differences")).as("a consistent database").isEqualTo(0L);
        }
    }

    /** Starts a run of {@code kind}, waits for it, and reads its row and its differences with plain SQL. */
    private Map<String, Object> run(String kind) throws InterruptedException {
        Api.Response started = api.post("erin", "/api/admin/reconciliation/runs", "{\"kind\":\"" + kind + "\"}");
        assertThat(started.status()).as(started.toString()).isEqualTo(202);
        long id = started.json().get("id").asLong();
        Instant deadline = Instant.now().plus(Duration.ofHours(3));
        while (Instant.now().isBefore(deadline)) {
            JsonNode view = api.get("erin", "/api/admin/reconciliation/runs/" + id).json();
            if (view.get("state").asString().equals("SUCCEEDED") || view.get("state").asString().equals("FAILED")) {
                break;
            }
            Thread.sleep(1_000);
        }
        Map<String, Object> run = db.business().queryForMap("""
                select r.id, r.kind, r.state, r.started_at, r.finished_at, r.applications_scanned,
                       (select coalesce(sum(differences), 0) from reconciliation_run_rule where run_id = r.id) as differences
                  from reconciliation_run r where r.id = ?
                """, id);
        assertThat(run.get("state")).as(run.toString()).isEqualTo("SUCCEEDED");
        return run;
    }

    private static String row(Map<String, Object> run) {
        Duration took = Duration.between(((Timestamp) run.get("started_at")).toInstant(), ((Timestamp) run.get("finished_at")).toInstant());
        int scanned = ((Number) run.get("applications_scanned")).intValue();
        return "| %s | %d | %.1f s | %.0f | %s |".formatted(run.get("kind"), scanned, took.toMillis() / 1000.0,
                scanned / Math.max(0.001, took.toMillis() / 1000.0), run.get("differences"));
    }
}
