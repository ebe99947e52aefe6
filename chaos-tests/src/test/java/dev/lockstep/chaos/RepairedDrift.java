package dev.lockstep.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.chaos.report.ScenarioRecord;
import dev.lockstep.chaos.support.LockstepClient.Answer;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * The drift the reconciliation-repair scenarios (129, 130-134) crash the repair of: a countersign application whose two
 * open todo-projection rows were moved to another step by plain SQL and aged past the settle time, so that a run
 * repairs it (PROJECTION_DRIFT: the rows written again from the engine, a reconciliation_repair row, an audit entry) in
 * one XA transaction. A countersign application, whose steps' deadlines are days away in every chaos configuration.
 */
final class RepairedDrift {

    static final String STEPS = "business: open projection rows by step";
    static final String REPAIRS = "business: reconciliation_repair rows";
    static final String AUDIT = "business: RECONCILIATION_REPAIR audit entries";
    static final Map<String, Object> DRIFTED = Map.of(STEPS, "legalReview=2", REPAIRS, "none", AUDIT, "0");
    static final Map<String, Object> REPAIRED_ONCE = Map.of(STEPS, "countersign=2", REPAIRS, "PROJECTION_DRIFT APPLIED", AUDIT, "1");

    private RepairedDrift() {
    }

    /** A new drifted application's id. */
    static long drifted(ChaosHarness h) throws SQLException {
        long app = UseCaseCrashChaosIT.submitted(h.client, UseCaseCrashChaosIT.draft(h.client, "chaos repair", false,
                "{\"signers\":[\"bob\",\"carol\"],\"policy\":\"ALL\"}"));
        try (Connection b = h.business.connect(); Statement sql = b.createStatement()) {
            sql.executeUpdate("update task_projection set task_definition_key = 'legalReview', task_name = 'drifted'"
                    + " where application_id = " + app + " and state = 'OPEN'");
            sql.executeUpdate("update application set updated_at = updated_at - interval '1 hour' where id = " + app);
        }
        return app;
    }

    /** What the repair changes, read with plain SQL from the business database. */
    static Map<String, Object> rows(ChaosHarness h, long app) {
        try (Connection b = h.business.connect()) {
            Map<String, Object> rows = new LinkedHashMap<>();
            rows.put(STEPS, ChaosHarness.one(b, "select string_agg(task_definition_key || '=' || n, ',' order by task_definition_key)"
                    + " from (select task_definition_key, count(*) n from task_projection where application_id = ? and state = 'OPEN'"
                    + " group by task_definition_key) k", app));
            rows.put(REPAIRS, ChaosHarness.one(b, "select coalesce(string_agg(rule_id || ' ' || outcome, ', ' order by id), 'none')"
                    + " from reconciliation_repair where application_id = ?", app));
            rows.put(AUDIT, ChaosHarness.one(b, "select count(*) from recovery_audit where action = 'RECONCILIATION_REPAIR'"
                    + " and detail like ?", "application " + app + " rule %"));
            return rows;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    static Answer startRun(ChaosHarness h, String kind) {
        return h.client.send("erin", "POST", "/api/admin/reconciliation/runs", "{\"kind\":\"" + kind + "\"}", null);
    }

    /** Starts a run of {@code kind} and polls it until it ended; fails unless it SUCCEEDED. */
    static void runToTheEnd(ChaosHarness h, ScenarioRecord s, String kind) {
        Answer started = startRun(h, kind);
        assertThat(started.status()).as("run started: " + started).isEqualTo(202);
        String path = "/api/admin/reconciliation/runs/" + started.json().get("id").asLong();
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode run = h.client.send("erin", "GET", path, null, null).json();
            String state = run.path("state").asString();
            if (state.equals("SUCCEEDED") || state.equals("FAILED")) {
                s.note("a " + kind + " run: " + state);
                assertThat(state).as(run.toString()).isEqualTo("SUCCEEDED");
                return;
            }
            ChaosHarness.sleep(500);
        }
        throw new AssertionError("the run at " + path + " did not end within 3 minutes");
    }
}
