package dev.lockstep.reconciliation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.support.Api;
import dev.lockstep.support.TestDatabases;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import tools.jackson.databind.JsonNode;

/** What reconciliation tests share: a run started over the API and awaited, ageing past the settle time, incidents by SQL. */
public final class ReconciliationRuns {

    private ReconciliationRuns() {
    }

    /** Starts a run of {@code kind} as the admin and waits until it SUCCEEDED; returns its view. */
    public static JsonNode runAndWait(Api api, String kind) {
        Api.Response started = api.post("erin", "/api/admin/reconciliation/runs", "{\"kind\":\"" + kind + "\"}");
        assertThat(started.status()).as(started.toString()).isEqualTo(202);
        long id = started.json().get("id").asLong();
        Instant deadline = Instant.now().plus(Duration.ofMinutes(2));
        while (Instant.now().isBefore(deadline)) {
            JsonNode run = api.get("erin", "/api/admin/reconciliation/runs/" + id).json();
            String state = run.get("state").asString();
            if (state.equals("SUCCEEDED") || state.equals("FAILED")) {
                assertThat(state).as(run.toString()).isEqualTo("SUCCEEDED");
                return run;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
        throw new AssertionError("run " + id + " did not finish");
    }

    /** The difference is older than the settle time: no action can still be between its two commits. */
    public static void ageApplication(TestDatabases db, long id) {
        db.business().update("update application set updated_at = updated_at - interval '1 hour' where id = ?", id);
    }

    /** The one OPEN incident of {@code rule} on the application. */
    static long openIncident(TestDatabases db, long applicationId, String rule) {
        List<Long> ids = db.business().queryForList("select id from reconciliation_incident where application_id = ? and rule_id = ?"
                + " and state = 'OPEN'", Long.class, applicationId, rule);
        assertThat(ids).as("open %s incident of application %s", rule, applicationId).hasSize(1);
        return ids.get(0);
    }
}
