package dev.lockstep.approval;

import static dev.lockstep.approval.ApiFlows.race;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.support.Api;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.TestDatabases;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** Retries replay, conflicting retries are refused, and racing requests on real threads leave one winner. */
@LockstepIntegrationTest
class IdempotencyAndRacesTest {

    @Autowired
    Api api;
    @Autowired
    TestDatabases db;

    @Test
    void theSameKeyAgainReplaysTheFirstResponseWithoutDoingTheWorkTwice() {
        long id = ApiFlows.createDraft(api, "LOW", false);
        String key = UUID.randomUUID().toString();

        Api.Response first = submit(id, key);
        Api.Response again = submit(id, key);

        assertThat(first.status()).isEqualTo(200);
        assertThat(again.status()).isEqualTo(first.status());
        assertThat(again.body()).isEqualTo(first.body());
        assertThat(processCount(id)).isEqualTo(1);
        assertThat(db.business().queryForObject("select command_status from workflow_command where request_id = ?",
                String.class, key)).isEqualTo("SUCCEEDED");
    }

    @Test
    void theSameKeyWithADifferentRequestIsRefusedWith422() {
        long first = ApiFlows.createDraft(api, "LOW", false);
        long second = ApiFlows.createDraft(api, "LOW", false);
        String key = UUID.randomUUID().toString();
        submit(first, key);

        Api.Response reused = submit(second, key);

        assertThat(reused.status()).isEqualTo(422);
        assertThat(reused.json().get("code").asString()).isEqualTo("IDEMPOTENCY_KEY_REUSED");
        assertThat(db.business().queryForObject("select approval_status from application where id = ?", String.class, second))
                .isEqualTo("DRAFT");
        assertThat(processCount(second)).isZero();
    }

    /**
     * Keys travel in logs and proxies: someone who learns another user's key must not learn from it what that
     * user did. Only the key's owner and administrators or DBAs are told which command used it.
     */
    @Test
    void aKeyAnotherUserUsedIsRefusedWithoutNamingTheirCommandToAnyoneButItsOwnerAndAnAdmin() {
        long applicantsDraft = ApiFlows.createDraft(api, "LOW", false);
        long other = ApiFlows.createDraft(api, "LOW", false);
        String taskId = firstTaskId(submit(other, UUID.randomUUID().toString()).json().get("processInstanceId").asString());
        // no digits, so that the application's id cannot appear in the detail by way of the key
        String key = "alices-key-" + UUID.randomUUID().toString().replaceAll("[0-9-]", "");
        assertThat(submit(applicantsDraft, key).status()).isEqualTo(200);

        Api.Response byAnother = complete("bob", taskId, "APPROVE", key);
        Api.Response byAnAdmin = api.post("erin", "/api/admin/applications/" + other + "/terminate", "{\"reason\":\"x\"}", key);
        Api.Response byTheOwner = submit(other, key);

        assertThat(byAnother.status()).as(byAnother.toString()).isEqualTo(422);
        assertThat(byAnother.json().get("code").asString()).isEqualTo("IDEMPOTENCY_KEY_REUSED");
        assertThat(byAnother.json().get("detail").asString()).doesNotContain("SUBMIT")
                .doesNotContain(Long.toString(applicantsDraft));
        for (Api.Response told : List.of(byAnAdmin, byTheOwner)) {
            assertThat(told.status()).as(told.toString()).isEqualTo(422);
            assertThat(told.json().get("detail").asString()).contains("SUBMIT").contains(Long.toString(applicantsDraft));
        }
        assertThat(db.business().queryForObject("select count(*) from approval_record where task_id = ?", Integer.class, taskId))
                .isZero();
        assertThat(db.business().queryForObject("select approval_status from application where id = ?", String.class, other))
                .isEqualTo("APPROVING");
    }

    @Test
    void aCompleteRetriedWithAnotherDecisionUnderTheSameKeyIsRefused() {
        long id = ApiFlows.createDraft(api, "LOW", false);
        String taskId = firstTaskId(submit(id, UUID.randomUUID().toString()).json().get("processInstanceId").asString());
        String key = UUID.randomUUID().toString();
        assertThat(complete("bob", taskId, "APPROVE", key).status()).isEqualTo(200);

        Api.Response changedMind = complete("bob", taskId, "REJECT", key);

        assertThat(changedMind.status()).isEqualTo(422);
        assertThat(db.business().queryForObject("select count(*) from approval_record where application_id = ?", Integer.class, id))
                .isEqualTo(1);
    }

    @Test
    void twoDifferentKeysRacingToSubmitOneDraftGiveExactlyOneSuccessAndOne409() throws Exception {
        long id = ApiFlows.createDraft(api, "LOW", false);

        List<Api.Response> responses = race(() -> submit(id, UUID.randomUUID().toString()),
                () -> submit(id, UUID.randomUUID().toString()));

        assertThat(responses).extracting(Api.Response::status).containsExactlyInAnyOrder(200, 409);
        assertThat(processCount(id)).isEqualTo(1);
        assertThat(db.business().queryForObject("select count(*) from business_process_binding where business_id = ?",
                Integer.class, Long.toString(id))).isEqualTo(1);
        assertThat(db.preparedTransactions()).isEmpty();
    }

    @Test
    void theSameKeyRacingWithItselfRunsOnceAndBothCallersGetTheSameAnswer() throws Exception {
        long id = ApiFlows.createDraft(api, "LOW", false);
        String key = UUID.randomUUID().toString();

        List<Api.Response> responses = race(() -> submit(id, key), () -> submit(id, key));

        assertThat(responses).extracting(Api.Response::status).containsExactly(200, 200);
        assertThat(responses.get(0).body()).isEqualTo(responses.get(1).body());
        assertThat(processCount(id)).isEqualTo(1);
    }

    @Test
    void twoCompletionsOfOneTaskAtOnceGiveOneSuccessAndOne409() throws Exception {
        long id = ApiFlows.createDraft(api, "LOW", false);
        String taskId = firstTaskId(submit(id, UUID.randomUUID().toString()).json().get("processInstanceId").asString());

        List<Api.Response> responses = race(() -> complete("bob", taskId, "APPROVE", UUID.randomUUID().toString()),
                () -> complete("bob", taskId, "REJECT", UUID.randomUUID().toString()));

        assertThat(responses).extracting(Api.Response::status).containsExactlyInAnyOrder(200, 409);
        assertThat(db.business().queryForObject("select count(*) from approval_record where task_id = ?", Integer.class, taskId))
                .isEqualTo(1);
        assertThat(db.preparedTransactions()).isEmpty();
    }

    @Test
    void legalAndFinanceDecidingAtTheSameMomentBothSucceedAndTheJoinFiresOnce() throws Exception {
        long id = ApiFlows.createDraft(api, "HIGH", false);
        String processInstanceId = submit(id, UUID.randomUUID().toString()).json().get("processInstanceId").asString();
        complete("bob", firstTaskId(processInstanceId), "APPROVE", UUID.randomUUID().toString());
        String legal = taskId(processInstanceId, "legalReview");
        String finance = taskId(processInstanceId, "financeReview");

        List<Api.Response> responses = race(() -> complete("carol", legal, "APPROVE", UUID.randomUUID().toString()),
                () -> complete("dave", finance, "APPROVE", UUID.randomUUID().toString()));

        assertThat(responses).extracting(Api.Response::status).containsExactly(200, 200);
        assertThat(db.workflow().queryForList("select task_def_key_ from act_ru_task where proc_inst_id_ = ?", String.class,
                processInstanceId)).containsExactly("finalApproval");
        assertThat(db.business().queryForObject("select current_task_summary from application where id = ?", String.class, id))
                .isEqualTo("Final approval");
    }

    private Api.Response submit(long id, String key) {
        return api.post("alice", "/api/applications/" + id + "/submit", null, key);
    }

    private Api.Response complete(String user, String taskId, String decision, String key) {
        return api.post(user, "/api/tasks/" + taskId + "/complete", "{\"decision\":\"" + decision + "\"}", key);
    }

    private int processCount(long id) {
        return db.workflow().queryForObject("select count(*) from act_hi_procinst where business_key_ = ?", Integer.class,
                Long.toString(id));
    }

    private String firstTaskId(String processInstanceId) {
        return db.workflow().queryForObject("select id_ from act_ru_task where proc_inst_id_ = ?", String.class, processInstanceId);
    }

    private String taskId(String processInstanceId, String key) {
        return db.workflow().queryForObject("select id_ from act_ru_task where proc_inst_id_ = ? and task_def_key_ = ?",
                String.class, processInstanceId, key);
    }
}
