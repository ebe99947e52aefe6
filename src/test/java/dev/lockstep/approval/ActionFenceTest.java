package dev.lockstep.approval;

import static dev.lockstep.approval.ApiFlows.complete;
import static dev.lockstep.approval.ApiFlows.createDraft;
import static dev.lockstep.approval.ApiFlows.openTaskId;
import static dev.lockstep.approval.ApiFlows.submit;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.support.Api;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.TestDatabases;
import dev.lockstep.transactions.workflow.ActionFence;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.activiti.engine.RuntimeService;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The window the fence closes: a previous action whose business branch has committed (row lock
 * released, {@code action_seq} counted up) while its workflow branch is not yet visible. The test
 * opens that window by hand — the business count moved with plain SQL, the workflow's left behind —
 * and checks that the next action waits for the workflow instead of acting on what it showed before.
 */
@LockstepIntegrationTest
class ActionFenceTest {

    private static final String MANAGER = "managerApproval";

    @Autowired
    Api api;
    @Autowired
    TestDatabases db;
    @Autowired
    RuntimeService runtime;

    @Test
    void anActionWaitsUntilThePreviousActionsWorkflowCommitIsVisible() throws Exception {
        long id = createDraft(api, "LOW", false);
        String processInstanceId = submit(api, id);
        String manager = openTaskId(db, processInstanceId, MANAGER);
        long committed = actionSeq(id);
        assertThat(workflowActionSeq(processInstanceId)).isEqualTo(committed);
        previousActionCommittedOnlyInBusiness(id);

        CompletableFuture<Api.Response> decision = CompletableFuture.supplyAsync(() -> complete(api, "bob", manager, "APPROVE"));

        Thread.sleep(1500);
        assertThat(decision).as("the decision must wait for the previous action's workflow commit").isNotDone();
        runtime.setVariable(processInstanceId, ActionFence.VARIABLE, committed + 1);
        Api.Response answered = decision.get(30, TimeUnit.SECONDS);

        assertThat(answered.status()).as(answered.toString()).isEqualTo(200);
        assertThat(actionSeq(id)).isEqualTo(committed + 2);
        assertThat(workflowActionSeq(processInstanceId)).isEqualTo(committed + 2);
        assertThat(db.business().queryForObject("select decision from approval_record where task_id = ?", String.class, manager))
                .isEqualTo("APPROVE");
    }

    @Test
    void aWorkflowCommitThatNeverBecomesVisibleGives503AndWritesNothing() {
        long id = createDraft(api, "LOW", false);
        String processInstanceId = submit(api, id);
        String manager = openTaskId(db, processInstanceId, MANAGER);
        previousActionCommittedOnlyInBusiness(id);
        long businessSeq = actionSeq(id);
        Map<String, Object> applicationBefore = db.business().queryForMap("select * from application where id = ?", id);

        Api.Response refused = complete(api, "bob", manager, "APPROVE");

        assertThat(refused.status()).as(refused.toString()).isEqualTo(503);
        assertThat(refused.json().get("code").asString()).isEqualTo("WORKFLOW_COMMIT_PENDING");
        assertThat(refused.header("Retry-After")).isEqualTo("1");
        assertThat(db.business().queryForMap("select * from application where id = ?", id)).isEqualTo(applicationBefore);
        assertThat(actionSeq(id)).isEqualTo(businessSeq);
        assertThat(workflowActionSeq(processInstanceId)).isEqualTo(businessSeq - 1);
        assertThat(db.business().queryForObject("select count(*) from approval_record where application_id = ?", Integer.class, id))
                .isZero();
        assertThat(db.workflow().queryForObject("select count(*) from act_ru_task where id_ = ?", Integer.class, manager))
                .isEqualTo(1);
        assertThat(db.preparedTransactions()).isEmpty();
    }

    /** What the business database shows after a previous action whose workflow branch has not committed yet. */
    private void previousActionCommittedOnlyInBusiness(long id) {
        db.business().update("update application set action_seq = action_seq + 1 where id = ?", id);
    }

    private long actionSeq(long id) {
        return db.business().queryForObject("select action_seq from application where id = ?", Long.class, id);
    }

    private long workflowActionSeq(String processInstanceId) {
        return db.workflow().queryForObject("select long_ from act_ru_variable where proc_inst_id_ = ? and execution_id_ = ?"
                + " and name_ = ?", Long.class, processInstanceId, processInstanceId, ActionFence.VARIABLE);
    }
}
