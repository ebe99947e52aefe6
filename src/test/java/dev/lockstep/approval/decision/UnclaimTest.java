package dev.lockstep.approval.decision;

import static dev.lockstep.approval.ApiFlows.complete;
import static dev.lockstep.approval.ApiFlows.createDraft;
import static dev.lockstep.approval.ApiFlows.key;
import static dev.lockstep.approval.ApiFlows.openTaskId;
import static dev.lockstep.approval.ApiFlows.submit;
import static dev.lockstep.approval.todo.ProjectionAssertions.allRows;
import static dev.lockstep.approval.todo.ProjectionAssertions.assertProjectionEqualsRebuild;
import static dev.lockstep.approval.todo.ProjectionAssertions.row;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.support.Api;
import dev.lockstep.support.UseCaseIntegrationTest;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Unclaim: the assignee gives a task back to its candidate groups, in the engine and in the todo projection (same XA
 * transaction); everyone else, a delegated task and a countersign vote are refused and change nothing. Checked with
 * plain SQL on both databases.
 */
class UnclaimTest extends UseCaseIntegrationTest {

    @Test
    void theAssigneeGivesTheTaskBackToItsCandidateGroups() {
        String run = submit(api, createDraft(api, "LOW", false));
        long application = applicationOf(run);
        String task = openTaskId(db, run, "managerApproval");
        assertThat(api.post("bob", "/api/tasks/" + task + "/claim", null).status()).isEqualTo(200);
        // carol, who is in no candidate group of the step, holds it after a transfer
        assertThat(api.post("bob", "/api/tasks/" + task + "/transfer", "{\"userId\":\"carol\"}", key()).status()).isEqualTo(200);
        assertThat(todoIds("bob")).doesNotContain(task);
        long actions = actionSeq(application);

        Api.Response unclaimed = unclaim("carol", task);

        assertThat(unclaimed.status()).as(unclaimed.toString()).isEqualTo(200);
        assertThat(unclaimed.json().get("assignee").isNull()).isTrue();
        assertThat(db.workflow().queryForMap("select assignee_, owner_, claim_time_ from act_ru_task where id_ = ?", task))
                .containsEntry("assignee_", null).containsEntry("owner_", null).containsEntry("claim_time_", null);
        assertThat(db.workflow().queryForList("select group_id_ from act_ru_identitylink where task_id_ = ? and type_ = 'candidate'",
                String.class, task)).containsExactly("managers");
        assertThat(row(db, task)).containsEntry("state", "OPEN").containsEntry("assignee", null)
                .containsEntry("candidate_groups", "{managers}");
        assertThat(db.business().queryForList("select group_id from task_offer where task_id = ?", String.class, task))
                .containsExactly("managers");
        assertThat(todoIds("bob")).contains(task);
        assertThat(todoIds("carol")).doesNotContain(task);
        // like a claim: one action on the application's fence, one journaled intent, no command record (no key)
        assertThat(actionSeq(application)).isEqualTo(actions + 1);
        assertThat(db.business().queryForObject("""
                select count(*) from recovery_intent where use_case = 'unclaim' and business_key = ? and user_id = 'carol'
                """, Integer.class, Long.toString(application))).isEqualTo(1);
        assertThat(db.business().queryForObject("select count(*) from workflow_command where command_type = 'UNCLAIM'",
                Integer.class)).isZero();

        assertThat(api.post("bob", "/api/tasks/" + task + "/claim", null).json().get("assignee").asString()).isEqualTo("bob");
        assertThat(complete(api, "bob", task, "APPROVE").status()).isEqualTo(200);
        assertProjectionEqualsRebuild(api, db);
    }

    @Test
    void onlyTheAssigneeUnclaimsAndOnlyAClaimedTask() {
        String run = submit(api, createDraft(api, "LOW", false));
        long application = applicationOf(run);
        String task = openTaskId(db, run, "managerApproval");

        assertProblem(unclaim("bob", task), 409, "TASK_NOT_CLAIMED");
        assertProblem(unclaim("dave", task), 403, "NOT_THE_ASSIGNEE");
        assertThat(api.post("bob", "/api/tasks/" + task + "/claim", null).status()).isEqualTo(200);
        List<Map<String, Object>> projection = allRows(db);
        long actions = actionSeq(application);

        assertProblem(unclaim("dave", task), 403, "NOT_THE_ASSIGNEE");
        assertProblem(unclaim("erin", task), 403, "NOT_THE_ASSIGNEE");
        assertProblem(unclaim("alice", task), 403, "APPLICANT_CANNOT_DECIDE");
        assertProblem(unclaim("bob", "no-such-task"), 404, "TASK_NOT_FOUND");

        assertThat(engineAssignee(task)).isEqualTo("bob");
        assertThat(allRows(db)).isEqualTo(projection);
        assertThat(actionSeq(application)).isEqualTo(actions);
        assertThat(unclaim("bob", task).status()).isEqualTo(200);
        assertProblem(unclaim("bob", task), 409, "TASK_NOT_CLAIMED");
        assertThat(complete(api, "bob", task, "APPROVE").status()).isEqualTo(200);
        assertProblem(unclaim("bob", task), 409, "TASK_ALREADY_COMPLETED");
    }

    @Test
    void aDelegatedTaskIsNotUnclaimedUntilItIsResolved() {
        String task = openTaskId(db, submit(api, createDraft(api, "LOW", false)), "managerApproval");
        assertThat(api.post("bob", "/api/tasks/" + task + "/delegate", "{\"userId\":\"carol\"}", key()).status()).isEqualTo(200);
        List<Map<String, Object>> projection = allRows(db);

        assertProblem(unclaim("carol", task), 409, "TASK_DELEGATED");
        assertProblem(unclaim("bob", task), 409, "TASK_DELEGATED");

        assertThat(db.workflow().queryForMap("select assignee_, owner_, delegation_ from act_ru_task where id_ = ?", task))
                .containsEntry("assignee_", "carol").containsEntry("owner_", "bob").containsEntry("delegation_", "PENDING");
        assertThat(allRows(db)).isEqualTo(projection);

        assertThat(api.post("carol", "/api/tasks/" + task + "/resolve", "{}", key()).status()).isEqualTo(200);
        assertThat(unclaim("bob", task).status()).isEqualTo(200);
        assertThat(db.workflow().queryForMap("select assignee_, owner_, delegation_ from act_ru_task where id_ = ?", task))
                .containsEntry("assignee_", null).containsEntry("owner_", "bob").containsEntry("delegation_", "RESOLVED");
        assertThat(row(db, task)).containsEntry("assignee", null).containsEntry("owner", "bob")
                .containsEntry("delegation_state", "RESOLVED");
        assertProjectionEqualsRebuild(api, db);
    }

    @Test
    void aCountersignVoteIsNotUnclaimed() {
        Api.Response created = api.post("alice", "/api/applications", """
                {"title": "Countersigned", "assetId": 7, "amount": 50000, "riskLevel": "LOW", "sensitive": false,
                 "countersign": {"signers": ["bob", "carol"], "policy": "ALL"}}
                """);
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        String run = submit(api, created.json().get("id").asLong());
        String vote = db.workflow().queryForObject(
                "select id_ from act_ru_task where proc_inst_id_ = ? and task_def_key_ = 'countersign' and assignee_ = 'bob'",
                String.class, run);
        List<Map<String, Object>> projection = allRows(db);

        assertProblem(unclaim("bob", vote), 409, "COUNTERSIGN_TASK_NOT_UNCLAIMABLE");
        assertProblem(unclaim("carol", vote), 403, "NOT_THE_ASSIGNEE");

        assertThat(engineAssignee(vote)).isEqualTo("bob");
        assertThat(allRows(db)).isEqualTo(projection);
    }

    @Test
    void aFailureAfterTheEngineUnclaimedLeavesEngineAndProjectionUntouched() {
        String task = openTaskId(db, submit(api, createDraft(api, "LOW", false)), "managerApproval");
        assertThat(api.post("bob", "/api/tasks/" + task + "/claim", null).status()).isEqualTo(200);
        List<Map<String, Object>> projection = allRows(db);
        faults.failAfter("approvalProcess", "unclaim");

        Api.Response response = unclaim("bob", task);

        assertThat(response.status()).isEqualTo(500);
        assertThat(engineAssignee(task)).isEqualTo("bob");
        assertThat(allRows(db)).isEqualTo(projection);
        assertThat(db.preparedTransactions()).isEmpty();
    }

    private Api.Response unclaim(String user, String taskId) {
        return api.post(user, "/api/tasks/" + taskId + "/unclaim", null);
    }

    private static void assertProblem(Api.Response response, int status, String code) {
        assertThat(response.status()).as(response.toString()).isEqualTo(status);
        assertThat(response.contentType()).startsWith("application/problem+json");
        assertThat(response.json().get("code").asString()).isEqualTo(code);
    }

    private String engineAssignee(String taskId) {
        return db.workflow().queryForObject("select assignee_ from act_ru_task where id_ = ?", String.class, taskId);
    }

    private long applicationOf(String run) {
        return db.business().queryForObject("select id from application where process_instance_id = ?", Long.class, run);
    }

    private long actionSeq(long application) {
        return db.business().queryForObject("select action_seq from application where id = ?", Long.class, application);
    }

    private List<String> todoIds(String user) {
        Api.Response response = api.get(user, "/api/tasks?size=100");
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        return response.json().get("items").valueStream().map(item -> item.get("id").asString()).toList();
    }
}
