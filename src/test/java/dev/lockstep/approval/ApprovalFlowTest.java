package dev.lockstep.approval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.support.Api;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.TestDatabases;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/** The happy paths end to end over HTTP, checked in both databases with plain SQL after every step. */
@LockstepIntegrationTest
class ApprovalFlowTest {

    @Autowired
    Api api;
    @Autowired
    TestDatabases db;

    @Test
    void lowRiskApplicationIsApprovedByManagerThenDirectorAndBothDatabasesAgreeAfterEachStep() {
        long id = ApiFlows.createDraft(api, "LOW", false);
        assertThat(businessRow(id)).containsEntry("approval_status", "DRAFT").containsEntry("publish_status", "NOT_STARTED");

        Api.Response submitted = api.post("alice", "/api/applications/" + id + "/submit", null, key());
        assertThat(submitted.status()).as(submitted.toString()).isEqualTo(200);
        String processInstanceId = submitted.json().get("processInstanceId").asString();
        assertThat(businessRow(id)).containsEntry("approval_status", "APPROVING").containsEntry("process_instance_id", processInstanceId)
                .containsEntry("lifecycle_no", 1).containsEntry("current_task_summary", "Manager approval");
        assertThat(db.business().queryForMap("select * from business_process_binding where business_id = ?", Long.toString(id)))
                .containsEntry("process_instance_id", processInstanceId).containsEntry("binding_status", "ACTIVE");
        assertThat(openTaskKeys(processInstanceId)).containsExactly("managerApproval");
        assertThat(db.workflow().queryForObject("select business_key_ from act_ru_execution where id_ = ?", String.class, processInstanceId))
                .isEqualTo(Long.toString(id));

        complete("bob", processInstanceId, "managerApproval", "APPROVE");
        assertThat(openTaskKeys(processInstanceId)).containsExactly("finalApproval");
        assertThat(businessRow(id)).containsEntry("approval_status", "APPROVING").containsEntry("current_task_summary", "Final approval");
        assertThat(db.business().queryForObject("select count(*) from approval_record where application_id = ?", Integer.class, id)).isEqualTo(1);

        complete("frank", processInstanceId, "finalApproval", "APPROVE");
        assertThat(businessRow(id)).containsEntry("approval_status", "APPROVED").containsEntry("publish_status", "PENDING");
        assertThat(db.business().queryForObject("select binding_status from business_process_binding where process_instance_id = ?",
                String.class, processInstanceId)).isEqualTo("APPROVED");
        assertThat(db.workflow().queryForObject("select count(*) from act_ru_execution where proc_inst_id_ = ?", Integer.class, processInstanceId)).isZero();
        assertThat(db.workflow().queryForObject("select end_time_ is not null from act_hi_procinst where id_ = ?", Boolean.class, processInstanceId)).isTrue();
        assertThat(outcomeVariable(processInstanceId)).isEqualTo("APPROVED");
        assertThat(db.preparedTransactions()).isEmpty();
    }

    @Test
    void sensitiveApplicationGoesThroughLegalAndFinanceInParallelAndARejectionEndsEverything() {
        long id = ApiFlows.createDraft(api, "LOW", true);
        String processInstanceId = api.post("alice", "/api/applications/" + id + "/submit", null, key()).json()
                .get("processInstanceId").asString();
        complete("bob", processInstanceId, "managerApproval", "APPROVE");
        assertThat(openTaskKeys(processInstanceId)).containsExactlyInAnyOrder("legalReview", "financeReview");
        assertThat(businessRow(id).get("current_task_summary").toString()).contains("Legal review").contains("Finance review");

        complete("carol", processInstanceId, "legalReview", "REJECT");

        assertThat(businessRow(id)).containsEntry("approval_status", "REJECTED").containsEntry("publish_status", "NOT_STARTED");
        assertThat(db.workflow().queryForObject("select count(*) from act_ru_task where proc_inst_id_ = ?", Integer.class, processInstanceId))
                .as("the sibling finance task is cancelled with the process").isZero();
        assertThat(outcomeVariable(processInstanceId)).isEqualTo("REJECTED");
        assertThat(db.business().queryForObject("select binding_status from business_process_binding where process_instance_id = ?",
                String.class, processInstanceId)).isEqualTo("REJECTED");
    }

    /** The view's task list comes from the business database's projection; it must match what the engine holds. */
    @Test
    void applicationDetailsListTheOpenTasksTheEngineHolds() {
        long id = ApiFlows.createDraft(api, "LOW", true);
        String processInstanceId = ApiFlows.submit(api, id);
        complete("bob", processInstanceId, "managerApproval", "APPROVE");
        String legal = ApiFlows.openTaskId(db, processInstanceId, "legalReview");
        assertThat(api.post("carol", "/api/tasks/" + legal + "/claim", null, key()).status()).isEqualTo(200);

        JsonNode openTasks = api.get("alice", "/api/applications/" + id).json().get("openTasks");

        var engineTasks = db.workflow().queryForList("select id_, name_, task_def_key_, proc_inst_id_, assignee_"
                + " from act_ru_task where proc_inst_id_ = ? order by create_time_, id_", processInstanceId);
        assertThat(openTasks).hasSize(2).hasSize(engineTasks.size());
        for (JsonNode task : openTasks) {
            Map<String, Object> row = engineTasks.stream().filter(r -> r.get("id_").equals(task.get("id").asString()))
                    .findFirst().orElseThrow();
            assertThat(task.get("name").asString()).isEqualTo(row.get("name_"));
            assertThat(task.get("taskDefinitionKey").asString()).isEqualTo(row.get("task_def_key_"));
            assertThat(task.get("processInstanceId").asString()).isEqualTo(processInstanceId);
            assertThat(task.get("assignee").isNull() ? null : task.get("assignee").asString()).isEqualTo(row.get("assignee_"));
            assertThat(task.get("delegated").asBoolean()).isFalse();
            assertThat(task.get("candidateGroups").valueStream().map(JsonNode::asString).toList())
                    .containsExactlyInAnyOrderElementsOf(db.workflow().queryForList("select group_id_ from act_ru_identitylink"
                            + " where task_id_ = ? and type_ = 'candidate' and group_id_ is not null", String.class, row.get("id_")));
        }
        assertThat(openTasks.valueStream().map(task -> task.get("assignee").isNull() ? null : task.get("assignee").asString()))
                .contains("carol");
    }

    @Test
    void rejectedApplicationCanBeResubmittedAsANewLifecycle() {
        long id = ApiFlows.createDraft(api, "MEDIUM", false);
        String first = api.post("alice", "/api/applications/" + id + "/submit", null, key()).json().get("processInstanceId").asString();
        complete("bob", first, "managerApproval", "REJECT");
        assertThat(businessRow(id)).containsEntry("approval_status", "REJECTED");

        Api.Response resubmitted = api.post("alice", "/api/applications/" + id + "/submit", null, key());
        assertThat(resubmitted.status()).as(resubmitted.toString()).isEqualTo(200);
        String second = resubmitted.json().get("processInstanceId").asString();

        assertThat(second).isNotEqualTo(first);
        assertThat(db.business().queryForList("select lifecycle_no, binding_status from business_process_binding where business_id = ?"
                + " order by lifecycle_no", Long.toString(id)))
                .containsExactly(Map.of("lifecycle_no", 1, "binding_status", "REJECTED"), Map.of("lifecycle_no", 2, "binding_status", "ACTIVE"));
        assertThat(db.workflow().queryForObject("select count(*) from act_hi_procinst where business_key_ = ?", Integer.class, Long.toString(id)))
                .isEqualTo(2);
        JsonNode details = api.get("alice", "/api/applications/" + id).json();
        assertThat(details.get("bindings")).hasSize(2);
        assertThat(details.get("approvalRecords")).hasSize(1);
        assertThat(details.get("openTasks").get(0).get("taskDefinitionKey").asString()).isEqualTo("managerApproval");
    }

    private void complete(String user, String processInstanceId, String taskKey, String decision) {
        String taskId = db.workflow().queryForObject("select id_ from act_ru_task where proc_inst_id_ = ? and task_def_key_ = ?",
                String.class, processInstanceId, taskKey);
        Api.Response response = api.post(user, "/api/tasks/" + taskId + "/complete",
                "{\"decision\":\"" + decision + "\",\"comment\":\"" + user + " says " + decision + "\"}", key());
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
    }

    private Map<String, Object> businessRow(long id) {
        return db.business().queryForMap("select * from application where id = ?", id);
    }

    private java.util.List<String> openTaskKeys(String processInstanceId) {
        return db.workflow().queryForList("select task_def_key_ from act_ru_task where proc_inst_id_ = ?", String.class, processInstanceId);
    }

    private String outcomeVariable(String processInstanceId) {
        return db.workflow().queryForObject("select text_ from act_hi_varinst where proc_inst_id_ = ? and name_ = 'outcome'",
                String.class, processInstanceId);
    }

    private static String key() {
        return UUID.randomUUID().toString();
    }
}
