package dev.lockstep.approval;

import static dev.lockstep.approval.ApiFlows.complete;
import static dev.lockstep.approval.ApiFlows.createDraft;
import static dev.lockstep.approval.ApiFlows.key;
import static dev.lockstep.approval.ApiFlows.openTaskId;
import static dev.lockstep.approval.ApiFlows.race;
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

/** 委派 (delegate, then resolve back to the owner) and 转办 (transfer), checked in the engine, the records and the projection. */
class DelegateTransferTest extends UseCaseIntegrationTest {

    @Test
    void delegatedTaskGoesToTheDelegateAndBackToTheOwnerWhoThenDecides() {
        String processInstanceId = submit(api, createDraft(api, "LOW", false));
        String task = openTaskId(db, processInstanceId, "managerApproval");

        Api.Response delegated = api.post("bob", "/api/tasks/" + task + "/delegate",
                "{\"userId\":\"carol\",\"comment\":\"check the licence\"}", key());

        assertThat(delegated.status()).as(delegated.toString()).isEqualTo(200);
        assertThat(delegated.json().get("delegationState").asString()).isEqualTo("PENDING");
        assertThat(engineTask(task)).containsEntry("assignee_", "carol").containsEntry("owner_", "bob")
                .containsEntry("delegation_", "PENDING");
        assertThat(row(db, task)).containsEntry("assignee", "carol").containsEntry("owner", "bob")
                .containsEntry("delegation_state", "PENDING");
        assertThat(todoIds("carol")).contains(task);
        assertThat(todoIds("bob")).doesNotContain(task);

        Api.Response delegateDecides = complete(api, "carol", task, "APPROVE");
        assertThat(delegateDecides.status()).isEqualTo(409);
        assertThat(delegateDecides.json().get("code").asString()).isEqualTo("TASK_DELEGATED");
        Api.Response delegateAsksWhereToReturn = api.get("carol", "/api/tasks/" + task + "/return-targets");
        assertThat(delegateAsksWhereToReturn.status()).isEqualTo(409);
        assertThat(delegateAsksWhereToReturn.json().get("code").asString()).isEqualTo("TASK_DELEGATED");
        Api.Response strangerResolves = api.post("dave", "/api/tasks/" + task + "/resolve", "{}", key());
        assertThat(strangerResolves.json().get("code").asString()).isEqualTo("NOT_THE_ASSIGNEE");

        Api.Response resolved = api.post("carol", "/api/tasks/" + task + "/resolve", "{\"comment\":\"licence ok\"}", key());
        assertThat(resolved.status()).as(resolved.toString()).isEqualTo(200);
        assertThat(engineTask(task)).containsEntry("assignee_", "bob").containsEntry("delegation_", "RESOLVED");
        assertThat(row(db, task)).containsEntry("assignee", "bob").containsEntry("delegation_state", "RESOLVED");
        Api.Response resolvedAgain = api.post("bob", "/api/tasks/" + task + "/resolve", "{}", key());
        assertThat(resolvedAgain.json().get("code").asString()).isEqualTo("TASK_NOT_DELEGATED");

        assertThat(complete(api, "bob", task, "APPROVE").status()).isEqualTo(200);
        assertThat(row(db, task)).containsEntry("state", "COMPLETED").containsEntry("assignee", "bob");
        assertThat(handovers(task)).containsExactly(
                Map.of("kind", "DELEGATE", "from_user", "bob", "to_user", "carol", "acted_by", "bob"),
                Map.of("kind", "RESOLVE", "from_user", "carol", "to_user", "bob", "acted_by", "carol"));
        assertProjectionEqualsRebuild(api, db);
    }

    /**
     * Issue 38: a resolve back to an owner who is already the assignee changes only the delegation state and
     * fires no assignment event; the projection, the resolve's answer and the todo list still follow the engine.
     */
    @Test
    void aResolveToAnOwnerWhoIsAlreadyTheAssigneeLeavesTheProjectionEqualToTheEngine() {
        String task = openTaskId(db, submit(api, createDraft(api, "LOW", false)), "managerApproval");
        assertThat(api.post("bob", "/api/tasks/" + task + "/claim", null).status()).isEqualTo(200);
        handOver("bob", task, "delegate", "carol");
        handOver("carol", task, "resolve", null);
        handOver("bob", task, "transfer", "dave");
        handOver("dave", task, "delegate", "bob");
        assertThat(engineTask(task)).containsEntry("assignee_", "bob").containsEntry("owner_", "bob")
                .containsEntry("delegation_", "PENDING");

        Api.Response resolved = handOver("bob", task, "resolve", null);

        assertThat(engineTask(task)).containsEntry("assignee_", "bob").containsEntry("owner_", "bob")
                .containsEntry("delegation_", "RESOLVED");
        assertThat(row(db, task)).containsEntry("assignee", "bob").containsEntry("owner", "bob")
                .containsEntry("delegation_state", "RESOLVED");
        assertThat(resolved.json().get("delegationState").asString()).isEqualTo("RESOLVED");
        assertThat(api.get("bob", "/api/tasks?size=100").json().get("items").valueStream()
                .filter(item -> item.get("id").asString().equals(task))
                .map(item -> item.get("delegationState").asString())).containsExactly("RESOLVED");
        assertThat(complete(api, "bob", task, "APPROVE").status()).isEqualTo(200);
        assertProjectionEqualsRebuild(api, db);
    }

    @Test
    void transferredTaskChangesHandsAndOnlyItsHolderOrAnAdminMayTransferIt() {
        String processInstanceId = submit(api, createDraft(api, "LOW", false));
        String task = openTaskId(db, processInstanceId, "managerApproval");

        Api.Response outsider = api.post("carol", "/api/tasks/" + task + "/transfer", "{\"userId\":\"carol\"}", key());
        assertThat(outsider.status()).isEqualTo(403);
        assertThat(outsider.json().get("code").asString()).isEqualTo("NOT_A_CANDIDATE");
        Api.Response toSelf = api.post("bob", "/api/tasks/" + task + "/transfer", "{\"userId\":\"bob\"}", key());
        assertThat(toSelf.json().get("code").asString()).isEqualTo("HANDOVER_TO_SELF");

        Api.Response transferred = api.post("bob", "/api/tasks/" + task + "/transfer",
                "{\"userId\":\"frank\",\"comment\":\"director's call\"}", key());
        assertThat(transferred.status()).as(transferred.toString()).isEqualTo(200);
        assertThat(engineTask(task)).containsEntry("assignee_", "frank").containsEntry("owner_", null);
        assertThat(todoIds("frank")).contains(task);
        assertThat(todoIds("bob")).doesNotContain(task);
        assertThat(complete(api, "bob", task, "APPROVE").json().get("code").asString()).isEqualTo("TASK_CLAIMED_BY_OTHER");

        Api.Response byAdmin = api.post("erin", "/api/tasks/" + task + "/transfer", "{\"userId\":\"dave\"}", key());
        assertThat(byAdmin.status()).as(byAdmin.toString()).isEqualTo(200);
        assertThat(row(db, task)).containsEntry("assignee", "dave");
        assertThat(complete(api, "dave", task, "REJECT").status()).isEqualTo(200);
        assertThat(handovers(task)).containsExactly(
                Map.of("kind", "TRANSFER", "from_user", "(unclaimed)", "to_user", "frank", "acted_by", "bob"),
                Map.of("kind", "TRANSFER", "from_user", "frank", "to_user", "dave", "acted_by", "erin"));
        assertProjectionEqualsRebuild(api, db);
    }

    @Test
    void twoTransfersOfOneTaskAtOnceGiveOneSuccessAndOne409() throws Exception {
        String processInstanceId = submit(api, createDraft(api, "LOW", false));
        String task = openTaskId(db, processInstanceId, "managerApproval");

        List<Api.Response> responses = race(
                () -> api.post("bob", "/api/tasks/" + task + "/transfer", "{\"userId\":\"carol\"}", key()),
                () -> api.post("bob", "/api/tasks/" + task + "/transfer", "{\"userId\":\"dave\"}", key()));

        assertThat(responses).extracting(Api.Response::status).containsExactlyInAnyOrder(200, 409);
        String winner = responses.stream().filter(r -> r.status() == 200).findFirst().orElseThrow().json().get("assignee").asString();
        assertThat(engineTask(task)).containsEntry("assignee_", winner);
        assertThat(row(db, task)).containsEntry("assignee", winner);
        assertThat(db.business().queryForObject("select count(*) from task_handover where task_id = ?", Integer.class, task))
                .isEqualTo(1);
        assertThat(db.preparedTransactions()).isEmpty();
    }

    @Test
    void aRetriedDelegationIsReplayedNotRepeated() {
        String task = openTaskId(db, submit(api, createDraft(api, "LOW", false)), "managerApproval");
        String key = key();

        Api.Response first = api.post("bob", "/api/tasks/" + task + "/delegate", "{\"userId\":\"carol\"}", key);
        Api.Response retry = api.post("bob", "/api/tasks/" + task + "/delegate", "{\"userId\":\"carol\"}", key);

        assertThat(first.status()).as(first.toString()).isEqualTo(200);
        assertThat(retry.status()).isEqualTo(200);
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(handovers(task)).hasSize(1);
        assertThat(engineTask(task)).containsEntry("owner_", "bob").containsEntry("assignee_", "carol");
    }

    @Test
    void aFailedTransferLeavesEngineRecordsAndProjectionUntouched() {
        String processInstanceId = submit(api, createDraft(api, "LOW", false));
        String task = openTaskId(db, processInstanceId, "managerApproval");
        List<Map<String, Object>> projection = allRows(db);
        faults.failAfter("approvalProcess", "transfer");

        Api.Response response = api.post("bob", "/api/tasks/" + task + "/transfer", "{\"userId\":\"frank\"}", key());

        assertThat(response.status()).isEqualTo(500);
        assertThat(engineTask(task)).containsEntry("assignee_", null);
        assertThat(allRows(db)).isEqualTo(projection);
        assertThat(handovers(task)).isEmpty();
        assertThat(db.preparedTransactions()).isEmpty();
    }

    /** delegate / transfer to {@code to}, or resolve ({@code to} null), as {@code user}; must succeed. */
    private Api.Response handOver(String user, String taskId, String action, String to) {
        Api.Response response = api.post(user, "/api/tasks/" + taskId + "/" + action,
                to == null ? "{}" : "{\"userId\":\"" + to + "\"}", key());
        assertThat(response.status()).as(user + " " + action + ": " + response).isEqualTo(200);
        return response;
    }

    private Map<String, Object> engineTask(String taskId) {
        return db.workflow().queryForMap("select assignee_, owner_, delegation_ from act_ru_task where id_ = ?", taskId);
    }

    private List<Map<String, Object>> handovers(String taskId) {
        return db.business().queryForList(
                "select kind, coalesce(from_user, '(unclaimed)') as from_user, to_user, acted_by from task_handover where task_id = ? order by id", taskId);
    }

    private List<String> todoIds(String user) {
        Api.Response response = api.get(user, "/api/tasks?size=100");
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        return response.json().get("items").valueStream().map(item -> item.get("id").asString()).toList();
    }
}
