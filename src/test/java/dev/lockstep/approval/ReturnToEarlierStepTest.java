package dev.lockstep.approval;

import static dev.lockstep.approval.ApiFlows.complete;
import static dev.lockstep.approval.ApiFlows.createDraft;
import static dev.lockstep.approval.ApiFlows.openTaskId;
import static dev.lockstep.approval.ApiFlows.submit;
import static dev.lockstep.approval.todo.ProjectionAssertions.assertProjectionEqualsRebuild;
import static dev.lockstep.approval.todo.ProjectionAssertions.row;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.support.Api;
import dev.lockstep.support.UseCaseIntegrationTest;
import java.util.List;
import java.util.Map;
import org.activiti.engine.RuntimeService;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * 任意节点驳回 on the shipped processes: out of a parallel branch (sibling cancelled, nothing left at
 * the join), from final approval back to the manager in both modes, refused targets, a race with a
 * decision, and a rollback. Every run is driven to its end and checked for leftover executions.
 */
class ReturnToEarlierStepTest extends UseCaseIntegrationTest {

    private static final String MANAGER = "managerApproval";
    private static final String LEGAL = "legalReview";
    private static final String FINANCE = "financeReview";
    private static final String FINAL = "finalApproval";

    @Autowired
    RuntimeService runtime;

    ReturnFlows flows;

    @BeforeEach
    void flows() {
        flows = new ReturnFlows(api, db);
    }

    @Test
    void returningFromLegalCancelsTheOpenFinanceBranchAndRecreatesTheManagerTask() {
        long id = createDraft(api, "LOW", true);
        String processInstanceId = flows.submitAndPassManager(id);
        String legal = openTaskId(db, processInstanceId, LEGAL);
        String finance = openTaskId(db, processInstanceId, FINANCE);
        assertThat(flows.returnTargetIds("carol", legal)).containsExactly(MANAGER);

        Api.Response returned = flows.returnTask("carol", legal, MANAGER, "RERUN", "Wrong contract attached");

        assertThat(returned.status()).as(returned.toString()).isEqualTo(200);
        assertThat(returned.json().get("approvalStatus").asString()).isEqualTo("APPROVING");
        String reason = "Returned to Manager approval (RERUN) by carol: Wrong contract attached";
        assertThat(row(db, legal)).containsEntry("state", "CANCELED").containsEntry("end_reason", reason)
                .containsEntry("assignee", "carol");
        assertThat(row(db, finance)).containsEntry("state", "CANCELED").containsEntry("end_reason", reason);
        assertThat(db.workflow().queryForList("select delete_reason_ from act_hi_taskinst where id_ in (?, ?)", String.class,
                legal, finance)).containsOnly(reason);
        assertThat(flows.openTaskKeys(processInstanceId)).containsExactly(MANAGER);
        String manager = openTaskId(db, processInstanceId, MANAGER);
        assertThat(row(db, manager)).containsEntry("state", "OPEN").containsEntry("candidate_groups", "{managers}");
        assertThat(executionsAt(processInstanceId, "reviewJoin")).isZero();
        assertThat(db.workflow().queryForList("select act_id_ from act_ru_execution where proc_inst_id_ = ? and parent_id_ is not null",
                String.class, processInstanceId)).as("one branch left: the manager's").containsExactly(MANAGER);
        assertThat(db.business().queryForMap("select decision, task_definition_key, return_target, return_mode, comment, approver_id"
                + " from approval_record where task_id = ?", legal)).isEqualTo(Map.of("decision", "RETURN",
                "task_definition_key", LEGAL, "return_target", MANAGER, "return_mode", "RERUN",
                "comment", "Wrong contract attached", "approver_id", "carol"));
        assertThat(db.business().queryForObject("select current_task_summary from application where id = ?", String.class, id))
                .isEqualTo("Manager approval");
        assertProjectionEqualsRebuild(api, db);

        flows.approve("bob", processInstanceId, MANAGER);
        assertThat(flows.openTaskKeys(processInstanceId)).as("RERUN goes through both reviews again").containsExactlyInAnyOrder(LEGAL, FINANCE);
        approveBothReviews(processInstanceId);
        flows.approve("frank", processInstanceId, FINAL);
        assertApprovedAndGone(id, processInstanceId);
        assertProjectionEqualsRebuild(api, db);
    }

    @Test
    void returningFromLegalAfterFinanceApprovedLeavesNoExecutionWaitingAtTheJoin() {
        long id = createDraft(api, "LOW", true);
        String processInstanceId = flows.submitAndPassManager(id);
        flows.approve("dave", processInstanceId, FINANCE);
        assertThat(executionsAt(processInstanceId, "reviewJoin")).as("finance waits at the join").isEqualTo(1);
        String legal = openTaskId(db, processInstanceId, LEGAL);

        Api.Response returned = flows.returnTask("carol", legal, MANAGER, "JUMP_BACK", "Ask the manager about the budget");

        assertThat(returned.status()).as(returned.toString()).isEqualTo(200);
        assertThat(executionsAt(processInstanceId, "reviewJoin")).isZero();
        assertThat(db.workflow().queryForObject("select count(*) from act_ru_execution where proc_inst_id_ = ? and act_id_ = 'reviewJoin'",
                Integer.class, processInstanceId)).isZero();
        assertThat(flows.openTaskKeys(processInstanceId)).containsExactly(MANAGER);
        assertThat(processVariable(processInstanceId, "jumpBackTo")).containsExactly("reviewFork");
        assertProjectionEqualsRebuild(api, db);

        flows.approve("bob", processInstanceId, MANAGER);
        assertThat(processVariable(processInstanceId, "jumpBackTo")).as("consumed by the jump").isEmpty();
        assertThat(flows.openTaskKeys(processInstanceId)).as("a step inside the fork re-runs both branches")
                .containsExactlyInAnyOrder(LEGAL, FINANCE);
        flows.approve("carol", processInstanceId, LEGAL);
        assertThat(flows.openTaskKeys(processInstanceId)).as("the join waits for the new finance review, not the old one")
                .containsExactly(FINANCE);
        flows.approve("dave", processInstanceId, FINANCE);
        flows.approve("frank", processInstanceId, FINAL);
        assertApprovedAndGone(id, processInstanceId);
        assertProjectionEqualsRebuild(api, db);
    }

    @Test
    void returningFromFinalToTheManagerWithRerunGoesThroughBothReviewsAgain() {
        long id = createDraft(api, "LOW", true);
        String processInstanceId = flows.submitAndPassManager(id);
        approveBothReviews(processInstanceId);
        String last = openTaskId(db, processInstanceId, FINAL);
        Api.Response targets = api.get("frank", "/api/tasks/" + last + "/return-targets");
        assertThat(targets.status()).as(targets.toString()).isEqualTo(200);
        assertThat(targets.json().get("targets").toString())
                .isEqualTo("[{\"id\":\"managerApproval\",\"name\":\"Manager approval\"},{\"id\":\"reviewFork\",\"name\":\"Legal and finance review\"}]");

        assertThat(flows.returnTask("frank", last, MANAGER, "RERUN", "Budget line changed").status()).isEqualTo(200);

        assertThat(row(db, last)).containsEntry("state", "CANCELED");
        flows.approve("bob", processInstanceId, MANAGER);
        assertThat(flows.openTaskKeys(processInstanceId)).containsExactlyInAnyOrder(LEGAL, FINANCE);
        approveBothReviews(processInstanceId);
        assertThat(flows.openTaskKeys(processInstanceId)).containsExactly(FINAL);
        flows.approve("frank", processInstanceId, FINAL);
        assertApprovedAndGone(id, processInstanceId);
        assertThat(db.business().queryForList("select task_definition_key, decision from approval_record where application_id = ? order by id",
                id)).extracting(r -> r.get("task_definition_key") + ":" + r.get("decision")).containsExactly(
                "managerApproval:APPROVE", "legalReview:APPROVE", "financeReview:APPROVE", "finalApproval:RETURN",
                "managerApproval:APPROVE", "legalReview:APPROVE", "financeReview:APPROVE", "finalApproval:APPROVE");
        assertProjectionEqualsRebuild(api, db);
    }

    @Test
    void returningFromFinalToTheManagerWithJumpBackSkipsTheReviews() {
        long id = createDraft(api, "LOW", true);
        String processInstanceId = flows.submitAndPassManager(id);
        approveBothReviews(processInstanceId);
        String last = openTaskId(db, processInstanceId, FINAL);
        String key = ApiFlows.key();

        Api.Response returned = flows.returnTask("frank", last, MANAGER, "JUMP_BACK", "Signature missing", key);
        Api.Response replayed = flows.returnTask("frank", last, MANAGER, "JUMP_BACK", "Signature missing", key);

        assertThat(returned.status()).as(returned.toString()).isEqualTo(200);
        assertThat(replayed.status()).isEqualTo(200);
        assertThat(replayed.body()).isEqualTo(returned.body());
        assertThat(db.business().queryForObject("select count(*) from approval_record where decision = 'RETURN' and application_id = ?",
                Integer.class, id)).isEqualTo(1);
        flows.approve("bob", processInstanceId, MANAGER);
        assertThat(flows.openTaskKeys(processInstanceId)).as("straight back to the director").containsExactly(FINAL);
        flows.approve("frank", processInstanceId, FINAL);
        assertApprovedAndGone(id, processInstanceId);
        assertThat(db.workflow().queryForObject("select count(*) from act_hi_taskinst where proc_inst_id_ = ? and task_def_key_ in (?, ?)",
                Integer.class, processInstanceId, LEGAL, FINANCE)).as("the reviews ran once").isEqualTo(2);
        assertProjectionEqualsRebuild(api, db);
    }

    @Test
    void aRedoneStepMayStillRejectAndTheOutcomeFollows() {
        long id = createDraft(api, "LOW", false);
        String processInstanceId = flows.submitAndPassManager(id);
        String last = openTaskId(db, processInstanceId, FINAL);
        assertThat(flows.returnTask("frank", last, MANAGER, "JUMP_BACK", "Check the asset").status()).isEqualTo(200);

        Api.Response rejected = complete(api, "bob", openTaskId(db, processInstanceId, MANAGER), "REJECT");

        assertThat(rejected.json().get("approvalStatus").asString()).isEqualTo("REJECTED");
        assertThat(flows.outcome(processInstanceId)).isEqualTo("REJECTED");
        assertNoRuntimeRows(processInstanceId);
        assertProjectionEqualsRebuild(api, db);
    }

    @Test
    void targetsNotPassedUnknownOrInsideTheForkAreRefusedAndNothingChanges() {
        long id = createDraft(api, "LOW", true);
        String processInstanceId = submit(api, id);
        String manager = openTaskId(db, processInstanceId, MANAGER);
        assertThat(flows.returnTargetIds("bob", manager)).as("nothing before the first step").isEmpty();
        flows.approve("bob", processInstanceId, MANAGER);
        String legal = openTaskId(db, processInstanceId, LEGAL);
        flows.approve("dave", processInstanceId, FINANCE);
        ReturnSnapshot before = snapshot(id, processInstanceId);

        assertRefused(flows.returnTask("carol", legal, FINAL, "RERUN", "not passed yet"), 422, "RETURN_TARGET_NOT_ALLOWED");
        assertRefused(flows.returnTask("carol", legal, "noSuchStep", "RERUN", "nonsense"), 422, "RETURN_TARGET_NOT_ALLOWED");
        assertRefused(flows.returnTask("carol", legal, FINANCE, "RERUN", "same parallel section"), 422, "RETURN_TARGET_NOT_ALLOWED");
        assertRefused(flows.returnTask("carol", legal, "reviewFork", "RERUN", "own fork"), 422, "RETURN_TARGET_NOT_ALLOWED");
        assertRefused(flows.returnTask("carol", legal, LEGAL, "RERUN", "itself"), 422, "RETURN_TARGET_NOT_ALLOWED");
        assertRefused(flows.returnTask("carol", legal, MANAGER, "RERUN", null), 400, "VALIDATION_FAILED");
        assertRefused(flows.returnTask("carol", legal, MANAGER, "RERUN", " "), 400, "VALIDATION_FAILED");
        assertRefused(flows.returnTask("carol", legal, MANAGER, "SIDEWAYS", "bad mode"), 400, null);
        assertRefused(flows.returnTask("dave", legal, MANAGER, "RERUN", "not my task"), 403, "NOT_A_CANDIDATE");
        assertRefused(api.get("dave", "/api/tasks/" + legal + "/return-targets"), 403, "NOT_A_CANDIDATE");
        assertRefused(complete(api, "carol", legal, "RETURN"), 400, "RETURN_NEEDS_TARGET");

        assertThat(snapshot(id, processInstanceId)).isEqualTo(before);
        flows.approve("carol", processInstanceId, LEGAL);
        String last = openTaskId(db, processInstanceId, FINAL);
        assertRefused(flows.returnTask("frank", last, LEGAL, "RERUN", "only with finance"), 422, "RETURN_TARGET_NOT_ALLOWED");
        assertThat(flows.returnTask("frank", last, "reviewFork", "RERUN", "both reviews again").status()).isEqualTo(200);
        assertThat(flows.openTaskKeys(processInstanceId)).containsExactlyInAnyOrder(LEGAL, FINANCE);
        assertProjectionEqualsRebuild(api, db);
    }

    @Test
    void aCountersignHasNoEarlierStepSoItsReturnIsRefused() {
        Api.Response created = api.post("alice", "/api/applications", """
                {"title": "Countersigned", "assetId": 7, "amount": 50000, "riskLevel": "HIGH", "sensitive": false,
                 "countersign": {"signers": ["bob", "carol"], "policy": "ALL"}}
                """);
        long id = created.json().get("id").asLong();
        String processInstanceId = submit(api, id);
        String bobs = db.workflow().queryForObject("select id_ from act_ru_task where proc_inst_id_ = ? and assignee_ = 'bob'",
                String.class, processInstanceId);
        complete(api, "carol", db.workflow().queryForObject(
                "select id_ from act_ru_task where proc_inst_id_ = ? and assignee_ = 'carol'", String.class, processInstanceId), "APPROVE");
        ReturnSnapshot before = snapshot(id, processInstanceId);

        assertThat(flows.returnTargetIds("bob", bobs)).isEmpty();
        assertRefused(flows.returnTask("bob", bobs, "countersign", "RERUN", "sign again"), 422, "RETURN_TARGET_NOT_ALLOWED");
        assertRefused(flows.returnTask("bob", bobs, "submitted", "RERUN", "start"), 422, "RETURN_TARGET_NOT_ALLOWED");

        assertThat(snapshot(id, processInstanceId)).isEqualTo(before);
        assertProjectionEqualsRebuild(api, db);
    }

    @Test
    void aReturnAndADecisionOnTheSameTaskAtOnceGiveOneWinnerAndOne409() throws Exception {
        long id = createDraft(api, "LOW", true);
        String processInstanceId = flows.submitAndPassManager(id);
        String legal = openTaskId(db, processInstanceId, LEGAL);

        List<Api.Response> responses = ApiFlows.race(() -> flows.returnTask("carol", legal, MANAGER, "RERUN", "race"),
                () -> complete(api, "carol", legal, "APPROVE"));

        assertThat(responses).extracting(Api.Response::status).containsExactlyInAnyOrder(200, 409);
        Api.Response loser = responses.stream().filter(r -> r.status() == 409).findFirst().orElseThrow();
        assertThat(loser.json().get("code").asString()).isEqualTo("TASK_ALREADY_COMPLETED");
        String decision = db.business().queryForObject("select decision from approval_record where task_id = ?", String.class, legal);
        boolean returnWon = responses.get(0).status() == 200;
        assertThat(decision).isEqualTo(returnWon ? "RETURN" : "APPROVE");
        assertThat(flows.openTaskKeys(processInstanceId)).isEqualTo(returnWon ? List.of(MANAGER) : List.of(FINANCE));
        assertThat(row(db, legal)).containsEntry("state", returnWon ? "CANCELED" : "COMPLETED");
        assertThat(db.preparedTransactions()).isEmpty();
        assertProjectionEqualsRebuild(api, db);
    }

    @Test
    void aFaultAfterTheEngineReturnedLeavesBothDatabasesUntouched() {
        long id = createDraft(api, "LOW", true);
        String processInstanceId = flows.submitAndPassManager(id);
        flows.approve("dave", processInstanceId, FINANCE);
        String legal = openTaskId(db, processInstanceId, LEGAL);
        ReturnSnapshot before = snapshot(id, processInstanceId);
        faults.failAfter("approvalProcess", "returnTo");

        Api.Response failed = flows.returnTask("carol", legal, MANAGER, "JUMP_BACK", "will fail");

        assertThat(failed.status()).isEqualTo(500);
        assertThat(snapshot(id, processInstanceId)).isEqualTo(before);
        assertThat(executionsAt(processInstanceId, "reviewJoin")).isEqualTo(1);
        assertThat(processVariable(processInstanceId, "jumpBackTo")).isEmpty();
        assertThat(db.preparedTransactions()).isEmpty();
        assertProjectionEqualsRebuild(api, db);
    }

    private ReturnSnapshot snapshot(long id, String processInstanceId) {
        return ReturnSnapshot.of(db, id, processInstanceId);
    }

    private void approveBothReviews(String processInstanceId) {
        flows.approve("carol", processInstanceId, LEGAL);
        flows.approve("dave", processInstanceId, FINANCE);
    }

    private static void assertRefused(Api.Response response, int status, String code) {
        assertThat(response.status()).as(response.toString()).isEqualTo(status);
        assertThat(response.contentType()).startsWith("application/problem+json");
        if (code != null) {
            assertThat(response.json().get("code").asString()).isEqualTo(code);
        }
    }

    /**
     * Through the engine API: executions of the process at one activity, inactive ones waiting at a join
     * included (the query's own activityId filter only matches active executions).
     */
    private long executionsAt(String processInstanceId, String activityId) {
        return runtime.createExecutionQuery().processInstanceId(processInstanceId).list().stream()
                .filter(execution -> activityId.equals(execution.getActivityId()))
                .count();
    }

    private List<String> processVariable(String processInstanceId, String name) {
        return db.workflow().queryForList("select text_ from act_ru_variable where proc_inst_id_ = ? and name_ = ?", String.class,
                processInstanceId, name);
    }

    private void assertApprovedAndGone(long id, String processInstanceId) {
        assertThat(db.business().queryForObject("select approval_status from application where id = ?", String.class, id))
                .isEqualTo("APPROVED");
        assertThat(flows.outcome(processInstanceId)).isEqualTo("APPROVED");
        assertThat(runtime.createProcessInstanceQuery().processInstanceId(processInstanceId).count()).isZero();
        assertNoRuntimeRows(processInstanceId);
    }

    private void assertNoRuntimeRows(String processInstanceId) {
        ReturnSnapshot.assertNoRuntimeRows(db, processInstanceId);
    }
}
