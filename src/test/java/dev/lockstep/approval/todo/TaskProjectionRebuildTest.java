package dev.lockstep.approval.todo;

import static dev.lockstep.approval.ApiFlows.complete;
import static dev.lockstep.approval.ApiFlows.createDraft;
import static dev.lockstep.approval.ApiFlows.openTaskId;
import static dev.lockstep.approval.ApiFlows.submit;
import static dev.lockstep.approval.todo.ProjectionAssertions.allRows;
import static dev.lockstep.approval.todo.ProjectionAssertions.assertOffersMatchProjection;
import static dev.lockstep.approval.todo.ProjectionAssertions.assertProjectionEqualsRebuild;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.support.Api;
import dev.lockstep.support.InjectedFaults;
import dev.lockstep.support.UseCaseIntegrationTest;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Issue 29 item 8: the administrators' rebuild of the whole projection goes application by application, a batch
 * of them per audited XA transaction, under their row locks only: it writes what the whole-table rebuild wrote
 * (the rows the listeners wrote, which every projection test compares with a rebuild), and a task command on an
 * application outside the batch in flight goes through.
 */
class TaskProjectionRebuildTest extends UseCaseIntegrationTest {

    /** The marks a rewrite keeps from the rows it replaces (a lost row's final deadline comes back from the policy instead). */
    private static final String MARKS = "select task_id, due_at, overdue_since, escalate_at, escalated_at from task_projection"
            + " where due_at is not null or overdue_since is not null or escalate_at is not null or escalated_at is not null"
            + " order by task_id";

    @Test
    void theRebuildInBatchesWritesWhatTheWholeTableRebuildWroteAndAuditsEachBatch() {
        // other test classes leave differences on purpose (a decision one database lacks): start from a table the engine explains
        assertThat(api.post("erin", "/api/admin/task-projection/rebuild", null).status()).isEqualTo(200);
        long approved = createDraft(api, "LOW", false);
        String approvedRun = submit(api, approved);
        assertThat(complete(api, "bob", openTaskId(db, approvedRun, "managerApproval"), "APPROVE").status()).isEqualTo(200);
        assertThat(complete(api, "frank", openTaskId(db, approvedRun, "finalApproval"), "APPROVE").status()).isEqualTo(200);
        long parallel = createDraft(api, "HIGH", true);
        String parallelRun = submit(api, parallel);
        assertThat(complete(api, "bob", openTaskId(db, parallelRun, "managerApproval"), "APPROVE").status()).isEqualTo(200);
        String legal = openTaskId(db, parallelRun, "legalReview");
        String finance = openTaskId(db, parallelRun, "financeReview");
        long waiting = createDraft(api, "LOW", false);
        String manager = openTaskId(db, submit(api, waiting), "managerApproval");
        Map<String, Object> managerTimes = db.business().queryForMap("select created_at, due_at, final_at from task_projection"
                + " where task_id = ?", manager);
        db.business().update("update task_projection set overdue_since = due_at - interval '1 hour',"
                + " escalated_at = escalate_at - interval '1 hour' where task_id = ?", legal);
        List<Map<String, Object>> written = allRows(db);
        // drift in three applications: a row gone, a row in other hands, a row no engine task explains
        db.business().update("delete from task_projection where task_id = ?", finance);
        db.business().update("delete from task_projection where task_id = ?", manager);
        db.business().update("update task_projection set assignee = 'mallory' where task_id = ?", legal);
        db.business().update("""
                insert into task_projection (task_id, process_instance_id, task_definition_key, task_name, business_type,
                       application_id, applicant_id, application_title, amount, state, candidate_groups, created_at)
                select 'no-such-task', ?, 'managerApproval', 'ghost', 'APPLICATION', id, applicant_id, title, amount, 'OPEN',
                       '{managers}', now() from application where id = ?
                """, approvedRun, approved);
        // a row gone took its marks along (the engine does not keep them); those of every row still there stay
        List<Map<String, Object>> marks = db.business().queryForList(MARKS);
        int applications = db.business().queryForObject("select count(*) from application", Integer.class);
        int auditedBefore = rebuildEntries();

        Api.Response rebuilt = api.post("erin", "/api/admin/task-projection/rebuild?batchSize=3", null);

        assertThat(rebuilt.status()).as(rebuilt.toString()).isEqualTo(200);
        assertThat(allRows(db)).isEqualTo(written);
        assertThat(db.business().queryForList(MARKS)).as("the projection's own deadline marks").isEqualTo(marks);
        // the lost manager row's final deadline comes back from the policy (return after 15 days); its reminder does not
        assertThat(db.business().queryForMap("select created_at, due_at, final_at from task_projection where task_id = ?", manager))
                .containsEntry("created_at", managerTimes.get("created_at")).containsEntry("final_at", managerTimes.get("final_at"))
                .containsEntry("due_at", null);
        assertThat(managerTimes.get("final_at")).isNotNull();
        assertOffersMatchProjection(db);
        int batches = (applications + 2) / 3;
        JsonNode result = rebuilt.json();
        assertThat(result.get("applications").asInt()).isEqualTo(applications);
        assertThat(result.get("rows").asInt()).isEqualTo(written.size());
        assertThat(result.get("batches").asInt()).isEqualTo(batches);
        assertThat(rebuildEntries() - auditedBefore).as("one audit entry per batch").isEqualTo(batches);
        long last = db.business().queryForObject("select max(id) from application", Long.class);
        assertThat(db.business().queryForObject("select detail from recovery_audit_intake where action = 'TASK_PROJECTION_REBUILT'"
                + " order by id desc fetch first 1 row only", String.class))
                .as("the last batch's entry").contains(" to " + last + " (", "rewritten from the engine and the archive");

        Api.Response tooLarge = api.post("erin", "/api/admin/task-projection/rebuild?batchSize=501", null);
        assertThat(tooLarge.status()).isEqualTo(400);
        assertThat(tooLarge.json().get("code").asString()).isEqualTo("VALIDATION_FAILED");
        assertThat(api.post("bob", "/api/admin/task-projection/rebuild", null).status()).isEqualTo(403);
    }

    /**
     * The rebuild is held inside its first batch's transaction (paused after it took the archival control row, with
     * the first application's rows deleted and its row lock held); a decision on the newest application, in no batch
     * yet, goes through meanwhile, and once the rebuild finished the projection still equals a rebuild.
     */
    @Test
    void aTaskCommandOnAnotherApplicationGoesThroughWhileABatchIsOpen() throws Exception {
        long other = createDraft(api, "LOW", false);
        String otherTask = openTaskId(db, submit(api, other), "managerApproval");
        InjectedFaults.Pause pause = faults.pauseAfter("historyArchive", "lockControl");
        ExecutorService executor = Executors.newSingleThreadExecutor();
        try {
            Future<Api.Response> rebuild = executor.submit(() -> api.post("erin", "/api/admin/task-projection/rebuild?batchSize=2",
                    null));
            pause.awaitReachedBy(rebuild);

            Api.Response decided = complete(api, "bob", otherTask, "APPROVE");

            assertThat(decided.status()).as(decided.toString()).isEqualTo(200);
            assertThat(rebuild).as("the rebuild is still in its first batch").isNotDone();
            pause.release();
            assertThat(rebuild.get().status()).as(rebuild.get().toString()).isEqualTo(200);
        } finally {
            pause.release();
            executor.shutdown();
        }
        assertThat(db.business().queryForObject("select state from task_projection where task_id = ?", String.class, otherTask))
                .isEqualTo("COMPLETED");
        assertProjectionEqualsRebuild(api, db);
    }

    private int rebuildEntries() {
        return db.business().queryForObject("select count(*) from recovery_audit_intake where action = 'TASK_PROJECTION_REBUILT'"
                + " and actor = 'erin'", Integer.class);
    }
}
