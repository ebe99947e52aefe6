package dev.lockstep.reconciliation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.approval.ApiFlows;
import dev.lockstep.publishing.outbox.OutboxPublisher;
import dev.lockstep.support.Api;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.TestDatabases;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.DoubleSummaryStatistics;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * Measurement, not a CI test (its name ends in Run, so surefire's defaults leave it out): a consistent database of
 * {@code bench.reconciliation.applications} (100,000) applications in this context's throwaway embedded databases, then
 * one full sweep and one incremental run through the API, each bounded by the table or
 * {@code bench.reconciliation.max-duration} (3h), whichever comes first, as production bounds a run. Reports time per
 * run, applications per second and the machine's load average during each run (docs/performance.md) and asserts that
 * the runs scanned every application and none showed a difference.
 *
 * <p>The mix: {@code bench.reconciliation.with-processes} (400) applications go through the API with real engine runs —
 * a quarter each left pending (APPROVING, open task, timer jobs), approved and published to the catalog, rejected, and
 * withdrawn — between two halves seeded with INSERT ... SELECT: drafts, and APPROVED, REJECTED and CANCELED applications
 * whose runs ended and were archived (their binding and an {@code archived_process} row, no engine history left).
 *
 * <p>Run (surefire:test alone, so that no second execution of the plugin runs it again):
 * {@code nice -n 5 mvn -o test-compile surefire:test -Dtest=ReconciliationScaleRun -Dsurefire.failIfNoSpecifiedTests=false}
 */
@LockstepIntegrationTest
class ReconciliationScaleRun {

    static final int APPLICATIONS = Integer.getInteger("bench.reconciliation.applications", 100_000);
    static final int WITH_PROCESSES = Integer.getInteger("bench.reconciliation.with-processes", 400);
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
    @Autowired
    OutboxPublisher publisher;

    @Test
    void aConsistentDatabaseOfAHundredThousandApplicationsShowsNoDifference() throws Exception {
        String definition = db.workflow().queryForObject("select id_ from act_re_procdef where key_ = 'applicationApproval'"
                + " order by version_ desc fetch first 1 rows only", String.class);
        int bySql = APPLICATIONS - WITH_PROCESSES;
        Instant seeding = Instant.now();
        seed(bySql / 2, definition);
        Duration seeded = Duration.between(seeding, Instant.now());
        Instant throughApi = Instant.now();
        Map<String, Integer> mix = throughTheApi(WITH_PROCESSES);
        Duration viaApi = Duration.between(throughApi, Instant.now());
        seeding = Instant.now();
        seed(bySql - bySql / 2, definition);
        seeded = seeded.plus(Duration.between(seeding, Instant.now()));
        // past the settle time: a consistent database, not one in the middle of its actions
        db.business().update("update application set updated_at = updated_at - interval '1 hour' where updated_at > now() - interval '1 hour'");
        db.business().execute("analyze");
        assertThat(db.business().queryForObject("select count(*) from application", Integer.class)).isEqualTo(APPLICATIONS);

        Map<String, Object> full = run("FULL");
        Map<String, Object> incremental = run("INCREMENTAL");

        String report = """
                | run | applications scanned | time | applications/s | differences | load average (1 min) during the run |
                |---|---|---|---|---|---|
                %s
                %s

                %d applications: %d seeded by SQL in %d ms (drafts; APPROVED, REJECTED, CANCELED with an archived run),
                %d through the API in %d s with real engine runs %s; max-duration per run %s
                """.formatted(row(full), row(incremental), APPLICATIONS, bySql, seeded.toMillis(), WITH_PROCESSES,
                viaApi.toSeconds(), mix, MAX_DURATION);
        System.out.println(report);
        Path output = Path.of("target/bench");
        Files.createDirectories(output);
        Files.writeString(output.resolve("reconciliation-scale.md"), report);
        for (Map<String, Object> run : List.of(full, incremental)) {
            assertThat(((Number) run.get("applications_scanned")).intValue()).isPositive();
            assertThat(run.get("differences")).as("a consistent database").isEqualTo(0L);
        }
        assertThat(db.business().queryForObject("select count(*) from reconciliation_incident", Integer.class)).isZero();
        assertThat(db.business().queryForObject("select count(*) from reconciliation_repair", Integer.class)).isZero();
    }

    /**
     * {@code count} applications with one INSERT ... SELECT, in the shares of a long-running system: a quarter drafts never
     * submitted, the rest decided or withdrawn long ago with their runs archived (binding and archived_process row).
     */
    private void seed(int count, String definition) {
        db.business().update("""
                with seeded as (
                    insert into application (title, asset_id, amount, risk_level, sensitive, applicant_id, approval_status,
                           publish_status, lifecycle_no, created_at, updated_at)
                    select 'bench ' || g, 42, 100, 'LOW', false, 'alice',
                           (array['DRAFT', 'APPROVED', 'REJECTED', 'CANCELED'])[1 + g % 4], 'NOT_STARTED',
                           case when g % 4 = 0 then 0 else 1 end, now() - interval '2 days', now() - interval '1 day'
                      from generate_series(1, ?) g
                    returning id, approval_status
                ), bound as (
                    insert into business_process_binding (business_type, business_id, process_type, process_instance_id,
                           process_definition_id, lifecycle_no, binding_status, created_at, ended_at)
                    select 'APPLICATION', cast(id as varchar), 'APPROVAL', 'bench-' || id, ?, 1,
                           case approval_status when 'CANCELED' then 'WITHDRAWN' else approval_status end,
                           now() - interval '2 days', now() - interval '1 day'
                      from seeded where approval_status <> 'DRAFT'
                )
                insert into archived_process (process_instance_id, business_key, process_definition_id, start_user_id, start_time,
                       end_time, delete_reason, outcome, archived_at)
                select 'bench-' || id, cast(id as varchar), ?, 'alice', now() - interval '2 days', now() - interval '1 day',
                       case approval_status when 'CANCELED' then 'WITHDRAWN: not needed' end,
                       case approval_status when 'CANCELED' then 'WITHDRAWN' else approval_status end, now()
                  from seeded where approval_status <> 'DRAFT'
                """, count, definition, definition);
        db.business().update("""
                update application set process_instance_id = 'bench-' || id, process_definition_id = ?
                 where approval_status <> 'DRAFT' and process_instance_id is null and title like 'bench %'
                """, definition);
    }

    /** {@code count} applications through the API, a quarter each pending, approved and published, rejected, withdrawn. */
    private Map<String, Integer> throughTheApi(int count) {
        Map<String, Integer> mix = new TreeMap<>();
        for (int i = 0; i < count; i++) {
            long id = ApiFlows.createDraft(api, "LOW", false);
            String run = ApiFlows.submit(api, id);
            String state = switch (i % 4) {
                case 0 -> "APPROVING";
                case 1 -> {
                    decide("bob", run, "managerApproval", "APPROVE");
                    decide("frank", run, "finalApproval", "APPROVE");
                    yield "APPROVED";
                }
                case 2 -> {
                    decide("bob", run, "managerApproval", "REJECT");
                    yield "REJECTED";
                }
                default -> {
                    Api.Response withdrawn = api.post("alice", "/api/applications/" + id + "/withdraw", "{\"reason\":\"not needed\"}");
                    assertThat(withdrawn.status()).as(withdrawn.toString()).isEqualTo(200);
                    yield "CANCELED";
                }
            };
            mix.merge(state, 1, Integer::sum);
        }
        while (publisher.publishDue() > 0) {
            // until every approved application's event reached the catalog
        }
        assertThat(db.business().queryForObject("select count(*) from application where approval_status = 'APPROVED'"
                + " and publish_status <> 'PUBLISHED' and title not like 'bench %'", Integer.class)).isZero();
        return mix;
    }

    private void decide(String user, String run, String step, String decision) {
        Api.Response response = ApiFlows.complete(api, user, ApiFlows.openTaskId(db, run, step), decision);
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
    }

    /**
     * Starts a run of {@code kind}, waits for it while sampling the load average, and reads its row and its differences
     * with plain SQL.
     */
    private Map<String, Object> run(String kind) throws Exception {
        Api.Response started = api.post("erin", "/api/admin/reconciliation/runs", "{\"kind\":\"" + kind + "\"}");
        assertThat(started.status()).as(started.toString()).isEqualTo(202);
        long id = started.json().get("id").asLong();
        List<Double> load = new ArrayList<>();
        Instant deadline = Instant.now().plus(Duration.ofHours(3));
        while (Instant.now().isBefore(deadline)) {
            load.add(Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]));
            JsonNode view = api.get("erin", "/api/admin/reconciliation/runs/" + id).json();
            if (view.get("state").asString().equals("SUCCEEDED") || view.get("state").asString().equals("FAILED")) {
                break;
            }
            Thread.sleep(1_000);
        }
        Map<String, Object> run = new LinkedHashMap<>(db.business().queryForMap("""
                select r.id, r.kind, r.state, r.started_at, r.finished_at, r.applications_scanned,
                       (select coalesce(sum(differences), 0) from reconciliation_run_rule where run_id = r.id) as differences
                  from reconciliation_run r where r.id = ?
                """, id));
        assertThat(run.get("state")).as(run.toString()).isEqualTo("SUCCEEDED");
        DoubleSummaryStatistics loads = load.stream().mapToDouble(Double::doubleValue).summaryStatistics();
        run.put("load", "%.1f–%.1f (mean %.1f)".formatted(loads.getMin(), loads.getMax(), loads.getAverage()));
        return run;
    }

    private static String row(Map<String, Object> run) {
        Duration took = Duration.between(((Timestamp) run.get("started_at")).toInstant(), ((Timestamp) run.get("finished_at")).toInstant());
        int scanned = ((Number) run.get("applications_scanned")).intValue();
        return "| %s | %d | %.1f s | %.0f | %s | %s |".formatted(run.get("kind"), scanned, took.toMillis() / 1000.0,
                scanned / Math.max(0.001, took.toMillis() / 1000.0), run.get("differences"), run.get("load"));
    }
}
