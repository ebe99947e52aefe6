package dev.lockstep.approval.todo;

import static dev.lockstep.approval.ApiFlows.complete;
import static dev.lockstep.approval.ApiFlows.createDraft;
import static dev.lockstep.approval.ApiFlows.openTaskId;
import static dev.lockstep.approval.ApiFlows.submit;
import static dev.lockstep.approval.todo.ProjectionAssertions.allRows;
import static dev.lockstep.approval.todo.ProjectionAssertions.assertProjectionEqualsRebuild;
import static dev.lockstep.approval.todo.ProjectionAssertions.row;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.support.Api;
import dev.lockstep.support.UseCaseIntegrationTest;
import java.math.BigDecimal;
import java.sql.Timestamp;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** The todo/done projection follows every engine task change in the same transaction, and a rebuild reproduces it. */
class TaskProjectionTest extends UseCaseIntegrationTest {

    @Test
    void projectionFollowsClaimDecisionParallelBranchesAndTheCancelledSibling() {
        long id = createDraft(api, "LOW", true, "4321.00");
        String processInstanceId = submit(api, id);
        String manager = openTaskId(db, processInstanceId, "managerApproval");

        assertThat(row(db, manager)).containsEntry("state", "OPEN").containsEntry("assignee", null)
                .containsEntry("candidate_groups", "{managers}").containsEntry("application_id", id)
                .containsEntry("applicant_id", "alice").containsEntry("business_type", "APPLICATION")
                .containsEntry("amount", new BigDecimal("4321.00")).containsEntry("ended_at", null);
        assertThat(todoIds("bob", "")).contains(manager);
        assertThat(todoIds("carol", "")).doesNotContain(manager);

        Api.Response claimed = api.post("bob", "/api/tasks/" + manager + "/claim", null);
        assertThat(claimed.status()).as(claimed.toString()).isEqualTo(200);
        assertThat(claimed.json().get("assignee").asString()).isEqualTo("bob");
        assertThat(row(db, manager)).containsEntry("assignee", "bob").containsEntry("state", "OPEN");

        assertThat(complete(api, "bob", manager, "APPROVE").status()).isEqualTo(200);
        assertThat(row(db, manager)).containsEntry("state", "COMPLETED").containsEntry("assignee", "bob")
                .containsEntry("end_reason", null);
        assertThat(todoIds("bob", "")).doesNotContain(manager);
        assertThat(doneIds("bob", "")).contains(manager);
        assertEndedWhenHistorySays(manager);
        String legal = openTaskId(db, processInstanceId, "legalReview");
        String finance = openTaskId(db, processInstanceId, "financeReview");
        assertThat(todoIds("carol", "")).contains(legal).doesNotContain(finance);
        assertThat(todoIds("dave", "")).contains(finance).doesNotContain(legal);

        assertThat(complete(api, "carol", legal, "REJECT").status()).isEqualTo(200);

        assertThat(row(db, legal)).containsEntry("state", "COMPLETED").containsEntry("assignee", "carol");
        assertThat(row(db, finance)).containsEntry("state", "CANCELED");
        assertEndedWhenHistorySays(finance);
        assertThat(row(db, finance).get("end_reason")).as("the engine's reason for cancelling the sibling").isNotNull();
        assertThat(todoIds("dave", "")).doesNotContain(finance);
        assertThat(doneIds("dave", "")).doesNotContain(finance);
        assertThat(db.business().queryForList("select state from task_projection where process_instance_id = ?", String.class,
                processInstanceId)).containsExactlyInAnyOrder("COMPLETED", "COMPLETED", "CANCELED");
        assertProjectionEqualsRebuild(api, db);
    }

    @Test
    void withdrawingClosesTheOpenTaskRow() {
        long id = createDraft(api, "LOW", false);
        String processInstanceId = submit(api, id);
        String manager = openTaskId(db, processInstanceId, "managerApproval");

        Api.Response withdrawn = api.post("alice", "/api/applications/" + id + "/withdraw", "{\"reason\":\"typo\"}",
                dev.lockstep.approval.ApiFlows.key());

        assertThat(withdrawn.status()).as(withdrawn.toString()).isEqualTo(200);
        assertThat(row(db, manager)).containsEntry("state", "CANCELED");
        assertEndedWhenHistorySays(manager);
        assertThat(todoIds("bob", "")).doesNotContain(manager);
        assertProjectionEqualsRebuild(api, db);
    }

    @Test
    void listsFilterByAmountApplicantAndCreationTimeAndPageByKeyset() {
        String first = openTaskId(db, submit(api, createDraft(api, "LOW", false, "777001.00")), "managerApproval");
        String second = openTaskId(db, submit(api, createDraft(api, "LOW", false, "777002.00")), "managerApproval");
        String third = openTaskId(db, submit(api, createDraft(api, "LOW", false, "777003.00")), "managerApproval");
        String range = "minAmount=777000&maxAmount=777999.99&applicantId=alice&businessType=APPLICATION";

        JsonNode page1 = todo("bob", range + "&size=2");
        assertThat(ids(page1)).containsExactly(third, second);
        JsonNode page2 = todo("bob", range + "&size=2&cursor=" + page1.get("nextCursor").asString());
        assertThat(ids(page2)).containsExactly(first);
        assertThat(page2.get("nextCursor").isNull()).isTrue();
        assertThat(ids(todo("bob", "minAmount=777001.50&maxAmount=777002.50"))).containsExactly(second);
        assertThat(ids(todo("bob", "applicantId=nobody&" + range))).isEmpty();
        assertThat(ids(todo("carol", range))).as("not offered to legal").isEmpty();

        String before = ((Timestamp) row(db, third).get("created_at")).toInstant().toString();
        assertThat(ids(todo("bob", range + "&createdBefore=" + before))).containsExactly(second, first);
        assertThat(ids(todo("bob", range + "&createdFrom=" + before))).containsExactly(third);

        Api.Response badCursor = api.get("bob", "/api/tasks?cursor=not-a-cursor");
        assertThat(badCursor.status()).isEqualTo(400);
        assertThat(badCursor.contentType()).startsWith("application/problem+json");
        assertThat(badCursor.json().get("code").asString()).isEqualTo("INVALID_CURSOR");
        assertThat(api.post("bob", "/api/admin/task-projection/rebuild", null).json().get("code").asString()).isEqualTo("FORBIDDEN");

        assertThat(complete(api, "bob", first, "APPROVE").status()).isEqualTo(200);
        assertThat(complete(api, "bob", second, "APPROVE").status()).isEqualTo(200);
        JsonNode done1 = done("bob", range + "&size=1");
        assertThat(ids(done1)).containsExactly(second);
        assertThat(ids(done("bob", range + "&size=1&cursor=" + done1.get("nextCursor").asString()))).containsExactly(first);
        assertProjectionEqualsRebuild(api, db);
    }

    @Test
    void aFailedDecisionLeavesTheProjectionUntouched() {
        long id = createDraft(api, "LOW", false);
        String processInstanceId = submit(api, id);
        String manager = openTaskId(db, processInstanceId, "managerApproval");
        List<Map<String, Object>> before = allRows(db);
        faults.failAfter("approvalProcess", "complete");

        Api.Response response = complete(api, "bob", manager, "APPROVE");

        assertThat(response.status()).isEqualTo(500);
        assertThat(allRows(db)).isEqualTo(before);
        assertThat(row(db, manager)).containsEntry("state", "OPEN").containsEntry("assignee", null);
        assertThat(db.workflow().queryForObject("select count(*) from act_ru_task where id_ = ? and assignee_ is null",
                Integer.class, manager)).isEqualTo(1);
        assertThat(db.preparedTransactions()).isEmpty();
        assertProjectionEqualsRebuild(api, db);
    }

    @Test
    void aFailedSubmissionLeavesNoProjectionRowAlthoughTheListenerHadWrittenOne() {
        long id = createDraft(api, "LOW", false);
        List<Map<String, Object>> before = allRows(db);
        faults.failAfter("approvalProcess", "start");

        Api.Response response = api.post("alice", "/api/applications/" + id + "/submit", null, dev.lockstep.approval.ApiFlows.key());

        assertThat(response.status()).isEqualTo(500);
        assertThat(allRows(db)).isEqualTo(before);
        assertThat(db.business().queryForObject("select count(*) from task_projection where application_id = ?", Integer.class, id))
                .isZero();
        assertThat(db.engineRowsForBusinessKey(id)).isZero();
        assertThat(db.preparedTransactions()).isEmpty();
    }

    /** The projected end is the engine's recorded end of the task, not a time of its own. */
    private void assertEndedWhenHistorySays(String taskId) {
        Timestamp end = db.workflow().queryForObject("select end_time_ from act_hi_taskinst where id_ = ?", Timestamp.class, taskId);
        assertThat(end).isNotNull();
        assertThat(((Timestamp) row(db, taskId).get("ended_at")).toInstant()).isEqualTo(end.toInstant());
    }

    private List<String> todoIds(String user, String query) {
        return ids(todo(user, query + "&size=100"));
    }

    private List<String> doneIds(String user, String query) {
        return ids(done(user, query + "&size=100"));
    }

    @Test
    void malformedFiltersAnswer400NamingEachParameterOnBothLists() {
        for (String list : List.of("/api/tasks", "/api/tasks/done")) {
            Api.Response answer = api.get("bob", list + "?minAmount=lots&createdFrom=yesterday&businessType=APPLICATION");
            assertThat(answer.status()).as(answer.toString()).isEqualTo(400);
            assertThat(answer.contentType()).startsWith("application/problem+json");
            assertThat(answer.json().get("code").asString()).isEqualTo("VALIDATION_FAILED");
            assertThat(answer.json().get("errors").valueStream().map(error -> error.get("field").asString()).toList())
                    .as(answer.toString()).containsExactlyInAnyOrder("minAmount", "createdFrom");
            assertThat(answer.json().get("detail").asString()).contains("minAmount is not a decimal number",
                    "createdFrom is not an instant such as 2026-12-01T00:00:00Z");

            Api.Response tooLarge = api.get("bob", list + "?size=101");
            assertThat(tooLarge.status()).as(tooLarge.toString()).isEqualTo(400);
            assertThat(tooLarge.json().get("code").asString()).isEqualTo("VALIDATION_FAILED");
            assertThat(tooLarge.json().get("errors").get(0).get("field").asString()).isEqualTo("size");
        }
    }

    private JsonNode todo(String user, String query) {
        return list(user, "/api/tasks?" + query);
    }

    private JsonNode done(String user, String query) {
        return list(user, "/api/tasks/done?" + query);
    }

    private JsonNode list(String user, String path) {
        Api.Response response = api.get(user, path);
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        return response.json();
    }

    private static List<String> ids(JsonNode page) {
        return page.get("items").valueStream().map(item -> item.get("id").asString()).toList();
    }
}
