package dev.lockstep.approval;

import static dev.lockstep.approval.ApiFlows.complete;
import static dev.lockstep.approval.ApiFlows.createDraft;
import static dev.lockstep.approval.ApiFlows.key;
import static dev.lockstep.approval.ApiFlows.openTaskId;
import static dev.lockstep.approval.ApiFlows.submit;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.chaos.InvariantChecker;
import dev.lockstep.support.Api;
import dev.lockstep.support.AuditEntries;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.TestDatabases;
import java.sql.Connection;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/**
 * Withdraw and terminate leave a trail entry: who, when, why, and which tasks were open; like every
 * decision, each is also an entry of the hash-chained audit trail (a termination chained at once).
 * Both are written in the transaction that cancels the process, so a refused cancel writes neither.
 */
@LockstepIntegrationTest
class ApplicationEventTrailTest {

    @Autowired
    Api api;
    @Autowired
    TestDatabases db;

    @Test
    void aWithdrawalIsRecordedWithItsActorReasonAndOpenTasks() {
        long id = createDraft(api, "LOW", false);
        String processInstanceId = submit(api, id);
        String task = openTaskId(db, processInstanceId, "managerApproval");
        String requestId = key();

        Api.Response withdrawn = api.post("alice", "/api/applications/" + id + "/withdraw", "{\"reason\":\"wrong asset\"}", requestId);

        assertThat(withdrawn.status()).as(withdrawn.toString()).isEqualTo(200);
        assertThat(db.business().queryForMap("""
                select lifecycle_no, kind, actor_id, reason, open_task_ids, open_task_names, request_id, occurred_at is not null as dated
                  from application_event where application_id = ?""", id)).isEqualTo(Map.of(
                "lifecycle_no", 1, "kind", "WITHDRAWN", "actor_id", "alice", "reason", "wrong asset",
                "open_task_ids", task, "open_task_names", "Manager approval", "request_id", requestId, "dated", true));
        JsonNode events = api.get("alice", "/api/applications/" + id).json().get("events");
        assertThat(events).hasSize(1);
        assertThat(events.get(0).get("kind").asString()).isEqualTo("WITHDRAWN");
        assertThat(events.get(0).get("actorId").asString()).isEqualTo("alice");
        assertThat(events.get(0).get("openTasks").get(0).get("id").asString()).isEqualTo(task);
    }

    @Test
    void aTerminationIsRecordedOnTheApplicationAndInTheHashChainedAuditTrail() {
        long id = createDraft(api, "HIGH", false);
        String processInstanceId = submit(api, id);
        assertThat(complete(api, "bob", openTaskId(db, processInstanceId, "managerApproval"), "APPROVE").status()).isEqualTo(200);
        String legal = openTaskId(db, processInstanceId, "legalReview");
        String finance = openTaskId(db, processInstanceId, "financeReview");
        Api.Response terminated = api.post("erin", "/api/admin/applications/" + id + "/terminate", "{\"reason\":\"fraud suspected\"}",
                key());

        assertThat(terminated.status()).as(terminated.toString()).isEqualTo(200);
        Map<String, Object> event = db.business().queryForMap(
                "select kind, actor_id, reason, open_task_ids from application_event where application_id = ?", id);
        assertThat(event).containsEntry("kind", "TERMINATED").containsEntry("actor_id", "erin").containsEntry("reason", "fraud suspected");
        assertThat(((String) event.get("open_task_ids")).split(",")).containsExactlyInAnyOrder(legal, finance);
        assertThat(db.business().queryForList("select actor, action, detail from recovery_audit where application_id = ?"
                + " and action = 'APPLICATION_TERMINATED'", id)).singleElement().satisfies(entry -> assertThat(entry)
                .containsEntry("actor", "erin")
                .containsEntry("action", "APPLICATION_TERMINATED")
                .hasEntrySatisfying("detail", detail -> assertThat((String) detail)
                        .contains("application #" + id).contains("fraud suspected").contains(legal).contains(finance)));
        assertThat(api.get("audrey", "/api/recovery/audit/verify").json().get("intact").asBoolean()).isTrue();
    }

    @Test
    void aRefusedCancelWritesNoTrailEntry() {
        long id = createDraft(api, "LOW", false);
        String processInstanceId = submit(api, id);
        assertThat(complete(api, "bob", openTaskId(db, processInstanceId, "managerApproval"), "APPROVE").status()).isEqualTo(200);
        Api.Response withdraw = api.post("alice", "/api/applications/" + id + "/withdraw", "{\"reason\":\"late\"}", key());
        Api.Response byApprover = api.post("bob", "/api/admin/applications/" + id + "/terminate", "{\"reason\":\"no\"}", key());

        assertThat(withdraw.status()).isEqualTo(409);
        assertThat(byApprover.status()).isEqualTo(403);
        assertThat(db.business().queryForObject("select count(*) from application_event where application_id = ?", Integer.class, id))
                .isZero();
        assertThat(AuditEntries.of(db, id)).extracting(entry -> entry.get("action"))
                .containsExactlyInAnyOrder("APPLICATION_CREATED", "APPLICATION_SUBMITTED", "TASK_APPROVED");
    }

    @Test
    void theInvariantCheckerMatchesEveryCanceledRunWithExactlyOneEvent() throws Exception {
        long withdrawn = createDraft(api, "LOW", false);
        submit(api, withdrawn);
        assertThat(api.post("alice", "/api/applications/" + withdrawn + "/withdraw", "{\"reason\":\"dup\"}", key()).status())
                .isEqualTo(200);
        long running = createDraft(api, "LOW", false);
        String runningInstance = submit(api, running);
        assertThat(eventViolations(withdrawn, running)).isEmpty();

        db.business().update("insert into application_event (application_id, lifecycle_no, process_instance_id, kind, actor_id,"
                + " reason, occurred_at) values (?, 1, ?, 'TERMINATED', 'erin', 'forged', now())", running, runningInstance);

        assertThat(eventViolations(withdrawn, running)).singleElement().asString()
                .contains("application event TERMINATED for application " + running).contains("APPROVING");
        db.business().update("delete from application_event where application_id = ?", running);
    }

    /**
     * The checker's findings about these applications' events: the database is shared with test classes
     * that break other applications on purpose (reconciliation, recovery).
     */
    private List<String> eventViolations(long... applicationIds) throws Exception {
        try (Connection business = db.business().getDataSource().getConnection();
                Connection workflow = db.workflow().getDataSource().getConnection()) {
            return new InvariantChecker().check(business, workflow, true).violations().stream()
                    .filter(violation -> violation.contains("event"))
                    .filter(violation -> java.util.Arrays.stream(applicationIds)
                            .anyMatch(id -> violation.matches(".*\\bapplication " + id + "\\b.*")))
                    .toList();
        }
    }
}
