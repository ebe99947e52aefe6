package dev.lockstep.approval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.support.Api;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.TestDatabases;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** Withdraw and terminate rules, and who may do what. */
@LockstepIntegrationTest
class WithdrawTerminateAndAccessTest {

    @Autowired
    Api api;
    @Autowired
    TestDatabases db;

    @Test
    void theApplicantWithdrawsBeforeAnyDecisionAndTheProcessEndsWithThatOutcome() {
        long id = ApiFlows.createDraft(api, "LOW", false);
        String processInstanceId = submit(id).json().get("processInstanceId").asString();

        Api.Response withdrawn = api.post("alice", "/api/applications/" + id + "/withdraw", "{\"reason\":\"typo in title\"}");

        assertThat(withdrawn.status()).as(withdrawn.toString()).isEqualTo(200);
        assertThat(db.business().queryForObject("select approval_status from application where id = ?", String.class, id))
                .isEqualTo("CANCELED");
        assertThat(db.business().queryForObject("select binding_status from business_process_binding where process_instance_id = ?",
                String.class, processInstanceId)).isEqualTo("WITHDRAWN");
        assertThat(db.workflow().queryForObject("select count(*) from act_ru_execution where proc_inst_id_ = ?", Integer.class,
                processInstanceId)).isZero();
        assertThat(db.workflow().queryForObject("select delete_reason_ from act_hi_procinst where id_ = ?", String.class,
                processInstanceId)).startsWith("WITHDRAWN");
        assertThat(db.workflow().queryForObject("select text_ from act_hi_varinst where proc_inst_id_ = ? and name_ = 'outcome'",
                String.class, processInstanceId)).isEqualTo("WITHDRAWN");
    }

    @Test
    void withdrawIsRefusedOnceAnApproverHasDecided() {
        long id = ApiFlows.createDraft(api, "HIGH", false);
        String processInstanceId = submit(id).json().get("processInstanceId").asString();
        String taskId = db.workflow().queryForObject("select id_ from act_ru_task where proc_inst_id_ = ?", String.class, processInstanceId);
        api.post("bob", "/api/tasks/" + taskId + "/complete", "{\"decision\":\"APPROVE\"}", UUID.randomUUID().toString());

        Api.Response refused = api.post("alice", "/api/applications/" + id + "/withdraw", "{\"reason\":\"changed my mind\"}");

        assertThat(refused.status()).isEqualTo(409);
        assertThat(refused.json().get("code").asString()).isEqualTo("APPROVAL_ALREADY_STARTED");
        assertThat(db.business().queryForObject("select approval_status from application where id = ?", String.class, id))
                .isEqualTo("APPROVING");
        assertThat(db.workflow().queryForObject("select count(*) from act_ru_task where proc_inst_id_ = ?", Integer.class,
                processInstanceId)).isEqualTo(2);
    }

    @Test
    void onlyAnAdminTerminatesAndAReasonIsRequired() {
        long id = ApiFlows.createDraft(api, "LOW", false);
        String processInstanceId = submit(id).json().get("processInstanceId").asString();

        Api.Response byApplicant = api.post("alice", "/api/admin/applications/" + id + "/terminate", "{\"reason\":\"no\"}");
        Api.Response withoutReason = api.post("erin", "/api/admin/applications/" + id + "/terminate", "{}");
        Api.Response terminated = api.post("erin", "/api/admin/applications/" + id + "/terminate", "{\"reason\":\"fraud suspected\"}");

        assertThat(byApplicant.status()).isEqualTo(403);
        assertThat(withoutReason.status()).isEqualTo(400);
        assertThat(withoutReason.json().get("errors").get(0).get("field").asString()).isEqualTo("reason");
        assertThat(terminated.status()).as(terminated.toString()).isEqualTo(200);
        assertThat(db.business().queryForObject("select closed_reason from application where id = ?", String.class, id))
                .isEqualTo("Terminated by erin: fraud suspected");
        assertThat(db.business().queryForObject("select binding_status from business_process_binding where process_instance_id = ?",
                String.class, processInstanceId)).isEqualTo("TERMINATED");
        assertThat(db.workflow().queryForObject("select count(*) from act_ru_execution where proc_inst_id_ = ?", Integer.class,
                processInstanceId)).isZero();
        assertThat(api.post("erin", "/api/admin/applications/" + id + "/terminate", "{\"reason\":\"again\"}").status())
                .isEqualTo(409);
    }

    @Test
    void onlyTheApplicantSubmitsAndOnlyACandidateClaimsOrCompletes() {
        long id = ApiFlows.createDraft(api, "LOW", false);
        assertThat(api.post("bob", "/api/applications/" + id + "/submit", null, UUID.randomUUID().toString()).status())
                .isEqualTo(403);
        String processInstanceId = submit(id).json().get("processInstanceId").asString();
        String taskId = db.workflow().queryForObject("select id_ from act_ru_task where proc_inst_id_ = ?", String.class, processInstanceId);

        Api.Response legalCompletesManagerTask = api.post("carol", "/api/tasks/" + taskId + "/complete",
                "{\"decision\":\"APPROVE\"}", UUID.randomUUID().toString());
        Api.Response applicantClaims = api.post("alice", "/api/tasks/" + taskId + "/claim", null);
        Api.Response managerClaims = api.post("bob", "/api/tasks/" + taskId + "/claim", null);

        assertThat(legalCompletesManagerTask.status()).isEqualTo(403);
        assertThat(legalCompletesManagerTask.json().get("code").asString()).isEqualTo("NOT_A_CANDIDATE");
        assertThat(applicantClaims.status()).isEqualTo(403);
        assertThat(managerClaims.status()).as(managerClaims.toString()).isEqualTo(200);
        assertThat(managerClaims.json().get("assignee").asString()).isEqualTo("bob");
        assertThat(db.workflow().queryForObject("select assignee_ from act_ru_task where id_ = ?", String.class, taskId))
                .isEqualTo("bob");
        assertThat(db.business().queryForObject("select current_task_summary from application where id = ?", String.class, id))
                .isEqualTo("Manager approval (bob)");
        assertThat(api.get("bob", "/api/tasks").json().findValuesAsString("id")).contains(taskId);
        assertThat(api.get("carol", "/api/tasks").json().findValuesAsString("id")).doesNotContain(taskId);
    }

    @Test
    void applicantsSeeOnlyTheirOwnApplications() {
        long id = ApiFlows.createDraft(api, "LOW", false);

        assertThat(api.get("alice", "/api/applications/" + id).status()).isEqualTo(200);
        assertThat(api.get("bob", "/api/applications/" + id).status()).isEqualTo(200);
        assertThat(api.get("alice", "/api/applications?status=DRAFT").json().get("items").findValuesAsString("applicantId"))
                .isNotEmpty().containsOnly("alice");
    }

    private Api.Response submit(long id) {
        Api.Response response = api.post("alice", "/api/applications/" + id + "/submit", null, UUID.randomUUID().toString());
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        return response;
    }
}
