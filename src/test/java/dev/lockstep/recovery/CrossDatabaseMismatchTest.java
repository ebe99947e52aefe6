package dev.lockstep.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.support.Api;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.TestDatabases;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/**
 * What a silently lost branch leaves: the business database says APPROVED while the engine never
 * moved. Made with plain SQL on the business side only, as a branch rolled back by hand would.
 */
@LockstepIntegrationTest
class CrossDatabaseMismatchTest {

    @Autowired Api api;
    @Autowired TestDatabases databases;

    @Test
    void anApprovedApplicationWhoseProcessStillRunsIsReported() {
        Api.Response created = api.post("alice", "/api/applications",
                "{\"title\":\"mismatch test\",\"assetId\":42,\"amount\":100,\"riskLevel\":\"LOW\",\"sensitive\":false}");
        assertThat(created.status()).as(created.toString()).isBetween(200, 201);
        long id = created.json().get("id").asLong();
        Api.Response submitted = api.post("alice", "/api/applications/" + id + "/submit", null, "submit-mismatch-" + id);
        assertThat(submitted.status()).as(submitted.toString()).isBetween(200, 201);
        assertThat(mismatch(id)).isNull();

        databases.business().update("""
                update application set approval_status = 'APPROVED', updated_at = now() - interval '10 minutes' where id = ?
                """, id);
        try {
            JsonNode mismatch = mismatch(id);
            assertThat(mismatch).isNotNull();
            assertThat(mismatch.get("engineState").asString()).isEqualTo("RUNNING");
            assertThat(mismatch.get("problem").asString()).contains("APPROVED", "never moved");
        } finally {
            databases.business().update("update application set approval_status = 'APPROVING' where id = ?", id);
        }
        assertThat(mismatch(id)).isNull();
    }

    @Test
    void theRulesBetweenBusinessStatusAndProcessState() {
        assertThat(CrossDatabaseCheck.problem("APPROVING", "RUNNING")).isNull();
        assertThat(CrossDatabaseCheck.problem("APPROVED", "ENDED")).isNull();
        assertThat(CrossDatabaseCheck.problem("APPROVING", "ENDED")).contains("still APPROVING");
        assertThat(CrossDatabaseCheck.problem("REJECTED", "RUNNING")).contains("never moved");
        assertThat(CrossDatabaseCheck.problem("APPROVING", "UNKNOWN")).contains("no process instance");
    }

    private JsonNode mismatch(long applicationId) {
        Api.Response response = api.get("dba1", "/api/recovery/mismatches");
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        for (JsonNode mismatch : response.json()) {
            if (mismatch.get("applicationId").asLong() == applicationId) {
                return mismatch;
            }
        }
        return null;
    }
}
