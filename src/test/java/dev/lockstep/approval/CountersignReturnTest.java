package dev.lockstep.approval;

import static dev.lockstep.approval.ApiFlows.complete;
import static dev.lockstep.approval.ApiFlows.openTaskId;
import static dev.lockstep.approval.ApiFlows.submit;
import static dev.lockstep.approval.todo.ProjectionAssertions.assertProjectionEqualsRebuild;
import static dev.lockstep.approval.todo.ProjectionAssertions.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.support.Api;
import dev.lockstep.support.UseCaseIntegrationTest;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.activiti.engine.RuntimeService;
import org.activiti.engine.runtime.Execution;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * 任意节点驳回 out of a multi-instance countersign: a countersign application with a manager review
 * first, returned by one signer while others are open or signed. Every signer instance and the
 * multi-instance root are cancelled, the manager step comes back, and the countersign after it is a
 * fresh round with a fresh tally. Every run is driven to its end and checked for leftover executions.
 */
class CountersignReturnTest extends UseCaseIntegrationTest {

    private static final String MANAGER = "managerApproval";
    private static final String COUNTERSIGN = "countersign";
    private static final List<String> LOOP_VARIABLES = List.of("nrOfInstances", "nrOfActiveInstances", "nrOfCompletedInstances",
            "loopCounter", "signer");

    @Autowired
    RuntimeService runtime;

    ReturnFlows flows;

    @BeforeEach
    void flows() {
        flows = new ReturnFlows(api, db);
    }

    @Test
    void returningFromOneSignerCancelsEveryInstanceAndTheNextRoundCountsFromZero() {
        long id = createWithManagerReview("ALL");
        String processInstanceId = flows.submitAndPassManager(id);
        Map<String, String> round1 = signerTasks(processInstanceId);
        assertThat(round1).containsOnlyKeys("bob", "carol", "dave");
        assertThat(complete(api, "bob", round1.get("bob"), "APPROVE").status()).isEqualTo(200);
        assertThat(variable(processInstanceId, "approvals")).containsExactly("1");
        assertThat(flows.returnTargetIds("carol", round1.get("carol"))).containsExactly(MANAGER);

        Api.Response returned = returnTask("carol", round1.get("carol"), "RERUN", "Scope of the agreement changed");

        assertThat(returned.status()).as(returned.toString()).isEqualTo(200);
        assertThat(returned.json().get("approvalStatus").asString()).isEqualTo("APPROVING");
        String reason = "Returned to Manager approval (RERUN) by carol: Scope of the agreement changed";
        for (String signer : List.of("carol", "dave")) {
            assertThat(row(db, round1.get(signer))).containsEntry("state", "CANCELED").containsEntry("end_reason", reason);
        }
        assertThat(row(db, round1.get("bob"))).containsEntry("state", "COMPLETED");
        assertThat(db.workflow().queryForList("select delete_reason_ from act_hi_taskinst where id_ in (?, ?)", String.class,
                round1.get("carol"), round1.get("dave"))).containsExactly(reason, reason);
        assertOnlyTheManagerStepRuns(processInstanceId);
        assertThat(db.business().queryForMap("select decision, task_definition_key, return_target, return_mode, approver_id"
                + " from approval_record where task_id = ?", round1.get("carol"))).isEqualTo(Map.of("decision", "RETURN",
                "task_definition_key", COUNTERSIGN, "return_target", MANAGER, "return_mode", "RERUN", "approver_id", "carol"));
        assertThat(db.business().queryForObject("select current_task_summary from application where id = ?", String.class, id))
                .isEqualTo("Manager approval");
        assertProjectionEqualsRebuild(api, db);

        flows.approve("bob", processInstanceId, MANAGER);
        Map<String, String> round2 = signerTasks(processInstanceId);
        assertThat(round2).containsOnlyKeys("bob", "carol", "dave");
        assertThat(round2.values()).doesNotContainAnyElementsOf(round1.values());
        assertThat(loopVariable(processInstanceId, "nrOfInstances")).isEqualTo(3);
        assertThat(loopVariable(processInstanceId, "nrOfActiveInstances")).isEqualTo(3);
        assertThat(variable(processInstanceId, "approvals")).as("bob's approval in the cancelled round does not count").containsExactly("0");
        assertThat(variable(processInstanceId, "rejections")).containsExactly("0");
        assertThat(complete(api, "bob", round2.get("bob"), "APPROVE").status()).isEqualTo(200);
        assertThat(complete(api, "carol", round2.get("carol"), "APPROVE").status()).isEqualTo(200);
        assertThat(status(id)).as("ALL waits for dave in this round").isEqualTo("APPROVING");
        assertThat(complete(api, "dave", round2.get("dave"), "APPROVE").status()).isEqualTo(200);

        assertThat(status(id)).isEqualTo("APPROVED");
        assertThat(flows.outcome(processInstanceId)).isEqualTo("APPROVED");
        ReturnSnapshot.assertNoRuntimeRows(db, processInstanceId);
        assertThat(db.business().queryForList("select task_definition_key, decision from approval_record where application_id = ? order by id",
                id)).extracting(r -> r.get("task_definition_key") + ":" + r.get("decision")).containsExactly(
                "managerApproval:APPROVE", "countersign:APPROVE", "countersign:RETURN", "managerApproval:APPROVE",
                "countersign:APPROVE", "countersign:APPROVE", "countersign:APPROVE");
        assertProjectionEqualsRebuild(api, db);
    }

    @Test
    void afterAJumpBackReturnTheFreshRoundTakesAnAddedSignerAndAVetoRejects() {
        long id = createWithManagerReview("ONE_VETO");
        String processInstanceId = submit(api, id);
        Api.Response tooEarly = addSigner("erin", id, "frank");
        assertThat(tooEarly.status()).as(tooEarly.toString()).isEqualTo(409);
        assertThat(tooEarly.json().get("code").asString()).isEqualTo("COUNTERSIGN_NOT_STARTED");
        flows.approve("bob", processInstanceId, MANAGER);
        Map<String, String> round1 = signerTasks(processInstanceId);
        assertThat(complete(api, "carol", round1.get("carol"), "APPROVE").status()).isEqualTo(200);

        assertThat(returnTask("dave", round1.get("dave"), "JUMP_BACK", "Missing the data-protection annex").status()).isEqualTo(200);

        assertOnlyTheManagerStepRuns(processInstanceId);
        assertThat(variable(processInstanceId, "jumpBackTo")).as("nothing lies between: the redone manager leads into the countersign anyway")
                .containsExactly(COUNTERSIGN);
        flows.approve("bob", processInstanceId, MANAGER);
        Map<String, String> round2 = signerTasks(processInstanceId);
        assertThat(round2).containsOnlyKeys("bob", "carol", "dave");
        assertThat(variable(processInstanceId, "approvals")).containsExactly("0");

        Api.Response added = addSigner("carol", id, "frank");
        assertThat(added.status()).as(added.toString()).isEqualTo(200);
        assertThat(loopVariable(processInstanceId, "nrOfInstances")).isEqualTo(4);
        assertThat(loopVariable(processInstanceId, "nrOfActiveInstances")).isEqualTo(4);
        String frank = signerTasks(processInstanceId).get("frank");
        assertThat(row(db, frank)).containsEntry("state", "OPEN").containsEntry("assignee", "frank");
        assertThat(complete(api, "bob", round2.get("bob"), "APPROVE").status()).isEqualTo(200);
        assertThat(complete(api, "frank", frank, "REJECT").status()).isEqualTo(200);

        assertThat(status(id)).isEqualTo("REJECTED");
        assertThat(flows.outcome(processInstanceId)).isEqualTo("REJECTED");
        assertThat(row(db, round2.get("carol"))).containsEntry("state", "CANCELED")
                .containsEntry("end_reason", "Multi-instance complete condition expression passed");
        ReturnSnapshot.assertNoRuntimeRows(db, processInstanceId);
        assertProjectionEqualsRebuild(api, db);
    }

    @Test
    void aReturnAfterTheCountersignWasDecidedIsRefused() {
        long id = createWithManagerReview("ONE_VETO");
        String processInstanceId = flows.submitAndPassManager(id);
        Map<String, String> tasks = signerTasks(processInstanceId);
        assertThat(complete(api, "bob", tasks.get("bob"), "REJECT").status()).isEqualTo(200);
        assertThat(status(id)).isEqualTo("REJECTED");
        ReturnSnapshot before = ReturnSnapshot.of(db, id, processInstanceId);

        for (String signer : List.of("carol", "bob")) {
            Api.Response late = returnTask(signer, tasks.get(signer), "RERUN", "too late");
            assertThat(late.status()).as(late.toString()).isEqualTo(409);
            assertThat(late.json().get("code").asString()).isEqualTo("TASK_ALREADY_COMPLETED");
            assertThat(api.get(signer, "/api/tasks/" + tasks.get(signer) + "/return-targets").status()).isEqualTo(409);
        }

        assertThat(ReturnSnapshot.of(db, id, processInstanceId)).isEqualTo(before);
        ReturnSnapshot.assertNoRuntimeRows(db, processInstanceId);
        assertProjectionEqualsRebuild(api, db);
    }

    @Test
    void theManagerReviewIsChosenAtCreationAndItsRejectionEndsTheRun() {
        long id = createWithManagerReview("RATIO");
        assertThat(db.business().queryForObject("select countersign_manager_review from application where id = ?", Boolean.class, id))
                .isTrue();
        assertThat(api.get("alice", "/api/applications/" + id).json().get("countersign").get("managerReview").asBoolean()).isTrue();
        long plain = createCountersign("""
                {"signers": ["bob", "carol"], "policy": "ALL"}""");
        assertThat(db.business().queryForObject("select countersign_manager_review from application where id = ?", Boolean.class, plain))
                .isFalse();
        assertThat(flows.openTaskKeys(submit(api, plain))).as("without the review the countersign is the first step")
                .containsExactly(COUNTERSIGN, COUNTERSIGN);
        long standard = ApiFlows.createDraft(api, "LOW", false);
        assertThatThrownBy(() -> db.business().update("update application set countersign_manager_review = true where id = ?", standard))
                .as("only a countersign application has a manager review before it")
                .hasMessageContaining("ck_application_countersign_manager_review");
        Api.Response wrongType = api.post("alice", "/api/applications", body("""
                {"signers": ["bob"], "policy": "ALL", "managerReview": "sometimes"}"""));
        assertThat(wrongType.status()).isEqualTo(400);
        assertThat(wrongType.contentType()).startsWith("application/problem+json");
        assertThat(wrongType.json().get("code").asString()).isEqualTo("MALFORMED_REQUEST");
        assertThat(wrongType.json().get("detail").asString()).contains("countersign.managerReview");

        String processInstanceId = submit(api, id);
        assertThat(flows.openTaskKeys(processInstanceId)).containsExactly(MANAGER);
        String manager = openTaskId(db, processInstanceId, MANAGER);
        assertThat(row(db, manager)).containsEntry("candidate_groups", "{managers}");
        assertThat(flows.returnTargetIds("bob", manager)).isEmpty();
        assertThat(complete(api, "bob", manager, "REJECT").status()).isEqualTo(200);

        assertThat(status(id)).isEqualTo("REJECTED");
        assertThat(flows.outcome(processInstanceId)).isEqualTo("REJECTED");
        assertThat(db.workflow().queryForObject("select count(*) from act_hi_taskinst where proc_inst_id_ = ? and task_def_key_ = ?",
                Integer.class, processInstanceId, COUNTERSIGN)).isZero();
        ReturnSnapshot.assertNoRuntimeRows(db, processInstanceId);
        assertProjectionEqualsRebuild(api, db);
    }

    @Test
    void theCountersignItselfIsNotATarget() {
        long id = createWithManagerReview("ALL");
        String processInstanceId = flows.submitAndPassManager(id);
        String carols = signerTasks(processInstanceId).get("carol");
        ReturnSnapshot before = ReturnSnapshot.of(db, id, processInstanceId);

        for (String target : List.of(COUNTERSIGN, "reviewFirst", "submitted")) {
            Api.Response refused = flows.returnTask("carol", carols, target, "RERUN", "again");
            assertThat(refused.status()).as(target).isEqualTo(422);
            assertThat(refused.json().get("code").asString()).isEqualTo("RETURN_TARGET_NOT_ALLOWED");
        }
        assertThat(returnTask("erin", carols, "RERUN", "not mine").status()).isEqualTo(403);

        assertThat(ReturnSnapshot.of(db, id, processInstanceId)).isEqualTo(before);
        assertProjectionEqualsRebuild(api, db);
    }

    @Test
    void aFaultAfterTheEngineReturnedLeavesBothDatabasesUntouched() {
        long id = createWithManagerReview("RATIO");
        String processInstanceId = flows.submitAndPassManager(id);
        Map<String, String> tasks = signerTasks(processInstanceId);
        assertThat(complete(api, "bob", tasks.get("bob"), "APPROVE").status()).isEqualTo(200);
        ReturnSnapshot before = ReturnSnapshot.of(db, id, processInstanceId);
        faults.failAfter("approvalProcess", "returnTo");

        Api.Response failed = returnTask("carol", tasks.get("carol"), "JUMP_BACK", "will fail");

        assertThat(failed.status()).isEqualTo(500);
        assertThat(ReturnSnapshot.of(db, id, processInstanceId)).isEqualTo(before);
        assertThat(loopVariable(processInstanceId, "nrOfInstances")).isEqualTo(3);
        assertThat(signerTasks(processInstanceId)).containsOnlyKeys("carol", "dave");
        assertThat(db.preparedTransactions()).isEmpty();
        assertProjectionEqualsRebuild(api, db);
    }

    /**
     * After a return out of the countersign: the process instance and one execution at the manager step,
     * read through the engine API and in ACT_RU_EXECUTION; the loop variables went with the root.
     */
    private void assertOnlyTheManagerStepRuns(String processInstanceId) {
        List<Execution> executions = runtime.createExecutionQuery().processInstanceId(processInstanceId).list();
        assertThat(executions).extracting(Execution::getActivityId).containsExactlyInAnyOrder(MANAGER, null);
        assertThat(db.workflow().queryForList("select coalesce(act_id_, '-') || ':' || is_mi_root_ || ':' || (parent_id_ is null)"
                + " from act_ru_execution where proc_inst_id_ = ?", String.class, processInstanceId))
                .containsExactlyInAnyOrder(MANAGER + ":false:false", "-:false:true");
        assertThat(db.workflow().queryForList("select name_ from act_ru_variable where proc_inst_id_ = ?", String.class, processInstanceId))
                .doesNotContainAnyElementsOf(LOOP_VARIABLES);
        assertThat(flows.openTaskKeys(processInstanceId)).containsExactly(MANAGER);
        assertThat(row(db, openTaskId(db, processInstanceId, MANAGER))).containsEntry("state", "OPEN")
                .containsEntry("candidate_groups", "{managers}");
    }

    private long createWithManagerReview(String policy) {
        return createCountersign("""
                {"signers": ["bob", "carol", "dave"], "policy": "%s", "ratio": %s, "managerReview": true}"""
                .formatted(policy, "RATIO".equals(policy) ? "0.60" : "null"));
    }

    private long createCountersign(String countersign) {
        Api.Response created = api.post("alice", "/api/applications", body(countersign));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        return created.json().get("id").asLong();
    }

    /**
     * LOW risk: bob is both the manager who reviews and a signer here, which the one-step-per-person
     * rule refuses on MEDIUM and HIGH (SeparationOfDutiesTest); these tests are about returns.
     */
    private static String body(String countersign) {
        return """
                {"title": "Data-sharing agreement", "assetId": 7, "amount": 50000, "riskLevel": "LOW", "sensitive": false,
                 "countersign": %s}
                """.formatted(countersign);
    }

    private Api.Response returnTask(String user, String taskId, String mode, String reason) {
        return flows.returnTask(user, taskId, MANAGER, mode, reason);
    }

    private Api.Response addSigner(String user, long id, String signer) {
        return api.post(user, "/api/applications/" + id + "/countersign/signers", "{\"userId\":\"" + signer + "\"}", ApiFlows.key());
    }

    /** Signer → open countersign task id. */
    private Map<String, String> signerTasks(String processInstanceId) {
        return db.workflow().queryForList("select assignee_, id_ from act_ru_task where proc_inst_id_ = ? and task_def_key_ = ?",
                processInstanceId, COUNTERSIGN).stream()
                .collect(Collectors.toMap(r -> (String) r.get("assignee_"), r -> (String) r.get("id_")));
    }

    /** The multi-instance root's own loop variable. */
    private int loopVariable(String processInstanceId, String name) {
        return db.workflow().queryForObject("select v.long_ from act_ru_variable v join act_ru_execution e on e.id_ = v.execution_id_"
                + " where v.proc_inst_id_ = ? and v.name_ = ? and e.is_mi_root_", Integer.class, processInstanceId, name);
    }

    /** A process-level variable's value as text (empty when it is not set). */
    private List<String> variable(String processInstanceId, String name) {
        return db.workflow().queryForList("select coalesce(text_, long_::text) from act_ru_variable where proc_inst_id_ = ? and name_ = ?"
                + " and execution_id_ = proc_inst_id_", String.class, processInstanceId, name);
    }

    private String status(long id) {
        return db.business().queryForObject("select approval_status from application where id = ?", String.class, id);
    }
}
