package dev.lockstep.approval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.support.Api;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.TestDatabases;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** Every bad request gets problem+json with a stable code and the field named; nothing is half-written. */
@LockstepIntegrationTest
class ApiErrorsTest {

    @Autowired
    Api api;
    @Autowired
    TestDatabases db;

    @Test
    void malformedJsonIs400() {
        Api.Response response = api.post("alice", "/api/applications", "{\"title\": ");
        assertProblem(response, 400, "MALFORMED_REQUEST");
    }

    /**
     * The YAML library is on the class path for declarative flows, which read their own body: no other endpoint reads or
     * writes YAML, not even one that names no media type (Spring registers a YAML converter once the library is there;
     * {@code InputHygieneConfiguration} takes it out again: without that, this run was started, 202).
     */
    @Test
    void noEndpointButTheDefinitionUploadReadsOrWritesYaml() {
        Integer runsBefore = db.business().queryForObject("select count(*) from reconciliation_run", Integer.class);
        Api.Response yaml = api.postDocument("erin", "/api/admin/reconciliation/runs", "application/yaml",
                "kind: INCREMENTAL\n".getBytes(StandardCharsets.UTF_8));
        assertThat(yaml.status()).as(yaml.toString()).isEqualTo(415);
        assertThat(yaml.contentType()).startsWith("application/problem+json");
        assertThat(db.business().queryForObject("select count(*) from reconciliation_run", Integer.class)).isEqualTo(runsBefore);
        assertThat(api.get("audrey", "/api/business-types", "application/yaml").status()).isEqualTo(406);
    }

    @Test
    void missingFieldsAre400WithEachFieldNamed() {
        Integer before = db.business().queryForObject("select count(*) from application", Integer.class);

        Api.Response response = api.post("alice", "/api/applications", "{\"title\": \"\", \"amount\": -1}");

        assertProblem(response, 400, "VALIDATION_FAILED");
        assertThat(response.json().get("errors").findValuesAsString("field"))
                .contains("title", "assetId", "amount", "riskLevel", "sensitive");
        assertThat(db.business().queryForObject("select count(*) from application", Integer.class)).isEqualTo(before);
    }

    @Test
    void aValueOfTheWrongKindNamesItsField() {
        Api.Response response = api.post("alice", "/api/applications",
                "{\"title\":\"t\",\"assetId\":1,\"amount\":1,\"riskLevel\":\"EXTREME\",\"sensitive\":false}");
        assertProblem(response, 400, "MALFORMED_REQUEST");
        assertThat(response.json().get("detail").asString()).contains("riskLevel");
    }

    @Test
    void anOversizeCommentIs400AndTheTaskStaysOpen() {
        long id = ApiFlows.createDraft(api, "LOW", false);
        String processInstanceId = api.post("alice", "/api/applications/" + id + "/submit", null, UUID.randomUUID().toString())
                .json().get("processInstanceId").asString();
        String taskId = db.workflow().queryForObject("select id_ from act_ru_task where proc_inst_id_ = ?", String.class, processInstanceId);

        Api.Response response = api.post("bob", "/api/tasks/" + taskId + "/complete",
                "{\"decision\":\"APPROVE\",\"comment\":\"" + "x".repeat(2001) + "\"}", UUID.randomUUID().toString());

        assertProblem(response, 400, "VALIDATION_FAILED");
        assertThat(response.json().get("errors").findValuesAsString("field")).containsExactly("comment");
        assertThat(db.workflow().queryForObject("select count(*) from act_ru_task where id_ = ?", Integer.class, taskId)).isEqualTo(1);
    }

    @Test
    void unknownIdsAre404() {
        assertProblem(api.get("alice", "/api/applications/987654321"), 404, "APPLICATION_NOT_FOUND");
        assertProblem(api.post("alice", "/api/applications/987654321/submit", null, UUID.randomUUID().toString()), 404,
                "APPLICATION_NOT_FOUND");
        assertProblem(api.post("bob", "/api/tasks/no-such-task/complete", "{\"decision\":\"APPROVE\"}",
                UUID.randomUUID().toString()), 404, "TASK_NOT_FOUND");
        assertProblem(api.post("bob", "/api/tasks/no-such-task/claim", null), 404, "TASK_NOT_FOUND");
        assertProblem(api.post("bob", "/api/tasks/no-such-task/unclaim", null), 404, "TASK_NOT_FOUND");
    }

    @Test
    void submitWithoutIdempotencyKeyIs400() {
        long id = ApiFlows.createDraft(api, "LOW", false);
        assertProblem(api.post("alice", "/api/applications/" + id + "/submit", null), 400, "IDEMPOTENCY_KEY_MISSING");
        assertThat(db.business().queryForObject("select approval_status from application where id = ?", String.class, id))
                .isEqualTo("DRAFT");
    }

    @Test
    void submittingAnApplicationThatIsAlreadyRunningIs409() {
        long id = ApiFlows.createDraft(api, "LOW", false);
        api.post("alice", "/api/applications/" + id + "/submit", null, UUID.randomUUID().toString());
        assertProblem(api.post("alice", "/api/applications/" + id + "/submit", null, UUID.randomUUID().toString()), 409,
                "APPLICATION_NOT_SUBMITTABLE");
    }

    @Test
    void aCompletedTaskCannotBeCompletedAgain() {
        long id = ApiFlows.createDraft(api, "LOW", false);
        String processInstanceId = api.post("alice", "/api/applications/" + id + "/submit", null, UUID.randomUUID().toString())
                .json().get("processInstanceId").asString();
        String taskId = db.workflow().queryForObject("select id_ from act_ru_task where proc_inst_id_ = ?", String.class, processInstanceId);
        api.post("bob", "/api/tasks/" + taskId + "/complete", "{\"decision\":\"APPROVE\"}", UUID.randomUUID().toString());

        assertProblem(api.post("bob", "/api/tasks/" + taskId + "/complete", "{\"decision\":\"APPROVE\"}",
                UUID.randomUUID().toString()), 409, "TASK_ALREADY_COMPLETED");
    }

    @Test
    void theOpenApiDescriptionIsServed() {
        Api.Response response = api.get("alice", "/v3/api-docs");
        assertThat(response.status()).isEqualTo(200);
        assertThat(response.json().get("paths").has("/api/applications/{id}/submit")).isTrue();
    }

    private static void assertProblem(Api.Response response, int status, String code) {
        assertThat(response.status()).as(response.toString()).isEqualTo(status);
        assertThat(response.contentType()).startsWith("application/problem+json");
        assertThat(response.json().get("code").asString()).isEqualTo(code);
    }
}
