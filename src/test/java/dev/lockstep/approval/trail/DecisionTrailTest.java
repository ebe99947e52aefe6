package dev.lockstep.approval.trail;

import static dev.lockstep.approval.ApiFlows.key;
import static dev.lockstep.approval.ApiFlows.openTaskId;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.platform.audit.AuditEntry;
import dev.lockstep.platform.audit.AuditEntryFormat;
import dev.lockstep.support.Api;
import dev.lockstep.support.AuditEntries;
import dev.lockstep.support.UseCaseIntegrationTest;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Every decision and control action on an application is exactly one entry of the audit trail, written in the
 * transaction of its effect, with who (and their roles), what, which application, lifecycle and definition version, the
 * request id and the XA transaction's gtrid. Driven over HTTP; the entries are read with plain SQL from the chain and
 * the intake (a decision's entry waits there for the audit-chain job's next batch).
 */
class DecisionTrailTest extends UseCaseIntegrationTest {

    private static final String HIGH = """
            {"title": "Trail", "assetId": 42, "amount": 90000, "riskLevel": "HIGH", "sensitive": false}""";
    private static final String LOW = """
            {"title": "Trail", "assetId": 42, "amount": 100, "riskLevel": "LOW", "sensitive": false}""";

    /** Each test's requests: "key action actor" of the one entry each must leave. */
    private final List<String> expected = new ArrayList<>();

    @AfterEach
    void theChainIsIntactAndHoldsEveryEntryInFormatTwo() {
        Api.Response verified = api.get("audrey", "/api/recovery/audit/verify");
        assertThat(verified.status()).as(verified.toString()).isEqualTo(200);
        assertThat(verified.json().get("intact").asBoolean()).as(verified.toString()).isTrue();
    }

    @Test
    void aHighRunsCreationSubmissionHandoversDecisionsAndReturnAreOneEntryEach() {
        long id = create("alice", HIGH);
        String run = submit(id);
        String manager = openTaskId(db, run, "managerApproval");
        act("bob", "TASK_DELEGATED", "/api/tasks/" + manager + "/delegate", "{\"userId\":\"carol\",\"comment\":\"licence?\"}");
        act("carol", "TASK_RESOLVED", "/api/tasks/" + manager + "/resolve", "{\"comment\":\"licence ok\"}");
        act("bob", "TASK_APPROVED", "/api/tasks/" + manager + "/complete", "{\"decision\":\"APPROVE\",\"comment\":\"fine\"}");
        act("carol", "TASK_RETURNED", "/api/tasks/" + openTaskId(db, run, "legalReview") + "/return",
                "{\"targetActivityId\":\"managerApproval\",\"mode\":\"RERUN\",\"reason\":\"wrong contract\"}");
        act("bob", "TASK_APPROVED", "/api/tasks/" + openTaskId(db, run, "managerApproval") + "/complete",
                "{\"decision\":\"APPROVE\"}");
        act("dave", "TASK_REJECTED", "/api/tasks/" + openTaskId(db, run, "financeReview") + "/complete",
                "{\"decision\":\"REJECT\",\"comment\":\"over budget\"}");

        List<Map<String, Object>> entries = AuditEntries.of(db, id);
        assertOneEntryPerRequest(id, entries);
        Map<String, Object> created = byAction(entries, "APPLICATION_CREATED").get(0);
        assertThat(created.get("gtrid")).as("a draft is a local transaction of the business database").isNull();
        assertThat(created.get("actor_roles")).isEqualTo("APPLICANT");
        for (Map<String, Object> entry : entries) {
            if (!"APPLICATION_CREATED".equals(entry.get("action"))) {
                assertThat((String) entry.get("gtrid")).as("%s", entry).isNotBlank();
                assertThat((String) entry.get("definition_version")).as("%s", entry).matches("APPLICATION v\\d+");
            }
            assertThat(entry.get("lifecycle_no")).as("%s", entry).isEqualTo("APPLICATION_CREATED".equals(entry.get("action")) ? 0 : 1);
            assertThat((String) entry.get("clock_source")).startsWith("jvm-utc@");
        }
        assertThat(byAction(entries, "TASK_REJECTED").get(0)).containsEntry("actor_roles", "APPROVER");
        assertThat((String) byAction(entries, "TASK_REJECTED").get(0).get("detail"))
                .contains("financeReview").contains("decision REJECT").contains("comment 11 chars sha256")
                .contains("SoD passed: not the applicant").contains("one step per person on a HIGH application");
        assertThat((String) byAction(entries, "TASK_RETURNED").get(0).get("detail")).contains("returned to").contains("RERUN");
        assertThat(entries.stream().map(entry -> entry.get("gtrid")).distinct().count())
                .as("each request its own XA transaction").isEqualTo(entries.size());
    }

    @Test
    void countersignVotesSignerChangesAndATerminationAreOneEntryEachAndTheTerminationIsChainedAtOnce() {
        long id = create("alice", """
                {"title": "Countersigned", "assetId": 7, "amount": 50000, "riskLevel": "HIGH", "sensitive": false,
                 "countersign": {"signers": ["bob", "carol", "dave"], "policy": "ALL", "ratio": null}}""");
        String run = submit(id);
        act("erin", "SIGNER_ADDED", "/api/applications/" + id + "/countersign/signers", "{\"userId\":\"frank\"}");
        act("erin", "SIGNER_REMOVED", "/api/applications/" + id + "/countersign/signers/remove", "{\"userId\":\"carol\"}");
        String bobsVote = db.workflow().queryForObject("select id_ from act_ru_task where proc_inst_id_ = ?"
                + " and task_def_key_ = 'countersign' and assignee_ = 'bob'", String.class, run);
        act("bob", "COUNTERSIGN_VOTED", "/api/tasks/" + bobsVote + "/complete", "{\"decision\":\"APPROVE\"}");
        String termination = act("erin", "APPLICATION_TERMINATED", "/api/admin/applications/" + id + "/terminate",
                "{\"reason\":\"fraud suspected\"}");

        List<Map<String, Object>> entries = AuditEntries.of(db, id);
        assertOneEntryPerRequest(id, entries);
        assertThat(byAction(entries, "SIGNER_ADDED").get(0)).containsEntry("actor_roles", "ADMIN");
        assertThat((String) byAction(entries, "SIGNER_REMOVED").get(0).get("detail")).contains("signer carol removed");
        assertThat(db.business().queryForObject("select count(*) from recovery_audit where application_id = ? and action = ?"
                + " and request_id = ?", Integer.class, id, "APPLICATION_TERMINATED", termination))
                .as("a forced action is chained right after its commit").isEqualTo(1);
    }

    @Test
    void aSeparationOfDutiesRefusalIsOneEntryOfWhoTriedWhatAndNoDecision() {
        long id = create("alice", LOW);
        String run = submit(id);
        String manager = openTaskId(db, run, "managerApproval");
        String refusal = key();

        Api.Response refused = api.post("alice", "/api/tasks/" + manager + "/complete", "{\"decision\":\"APPROVE\"}", refusal);

        assertThat(refused.status()).as(refused.toString()).isEqualTo(403);
        assertThat(AuditEntries.of(db, id, "TASK_APPROVED")).isEmpty();
        List<Map<String, Object>> refusals = AuditEntries.of(db, id, "SOD_REFUSED");
        assertThat(refusals).hasSize(1);
        assertThat(refusals.get(0)).containsEntry("actor", "alice").containsEntry("actor_roles", "APPLICANT")
                .containsEntry("lifecycle_no", 1).containsEntry("request_id", refusal);
        assertThat((String) refusals.get(0).get("detail")).startsWith("APPLICANT_CANNOT_DECIDE: ");

        claimOrUnclaim("bob", "TASK_CLAIMED", "/api/tasks/" + manager + "/claim");
        claimOrUnclaim("bob", "TASK_UNCLAIMED", "/api/tasks/" + manager + "/unclaim");
        act("bob", "TASK_TRANSFERRED", "/api/tasks/" + manager + "/transfer", "{\"userId\":\"frank\"}");
        act("alice", "APPLICATION_WITHDRAWN", "/api/applications/" + id + "/withdraw", "{\"reason\":\"dup\"}");
        expected.add(refusal + " SOD_REFUSED alice");
        assertOneEntryPerRequest(id, AuditEntries.of(db, id));
    }

    @Test
    void aDecisionWhoseTransactionRollsBackLeavesNoEntryAndItsRetryLeavesOne() {
        long id = create("alice", LOW);
        String run = submit(id);
        String manager = openTaskId(db, run, "managerApproval");
        faults.failAfter("recoveryAuditTrail", "append");

        Api.Response failed = api.post("bob", "/api/tasks/" + manager + "/complete", "{\"decision\":\"APPROVE\"}", key());

        assertThat(failed.status()).as(failed.toString()).isGreaterThanOrEqualTo(500);
        assertThat(AuditEntries.of(db, id, "TASK_APPROVED")).as("the entry was written, then rolled back").isEmpty();
        assertThat(db.business().queryForObject("select count(*) from approval_record where application_id = ?", Integer.class, id))
                .isZero();
        act("bob", "TASK_APPROVED", "/api/tasks/" + manager + "/complete", "{\"decision\":\"APPROVE\"}");
        assertOneEntryPerRequest(id, AuditEntries.of(db, id));
    }

    /** After a verify (which chains first) the application's entries are in the chain, format 2, each hash its own. */
    @Test
    void theEntriesJoinTheChainInFormatTwoAndTheirHashesRecompute() {
        long id = create("alice", LOW);
        submit(id);

        assertThat(api.get("audrey", "/api/recovery/audit/verify").json().get("intact").asBoolean()).isTrue();

        List<AuditEntry> chained = db.business().query("""
                select seq, format, at, clock_source, actor, actor_roles, action, application_id, lifecycle_no,
                       definition_version, request_id, gtrid, detail, prev_hash, hash
                  from recovery_audit where application_id = ? order by seq""", (row, n) -> new AuditEntry(row.getLong(1),
                row.getInt(2), row.getObject(3, Timestamp.class).toInstant(), row.getString(4), row.getString(5),
                row.getString(6), row.getString(7), row.getObject(8, Long.class), row.getObject(9, Integer.class),
                row.getString(10), row.getString(11), row.getString(12), row.getString(13), row.getString(14),
                row.getString(15)), id);
        assertThat(chained).extracting(AuditEntry::action).containsExactly("APPLICATION_CREATED", "APPLICATION_SUBMITTED");
        for (AuditEntry entry : chained) {
            assertThat(entry.format()).isEqualTo(AuditEntryFormat.CURRENT);
            assertThat(AuditEntryFormat.hash(entry.prevHash(), AuditEntryFormat.canonical(entry))).isEqualTo(entry.hash());
        }
        assertThat(db.business().queryForObject("select count(*) from recovery_audit_intake where application_id = ?"
                + " and chained_seq is null", Integer.class, id)).isZero();
    }

    private long create(String user, String body) {
        String requestId = key();
        Api.Response created = api.post(user, "/api/applications", body, requestId);
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        expected.add(requestId + " APPLICATION_CREATED " + user);
        return created.json().get("id").asLong();
    }

    private String submit(long id) {
        String requestId = act("alice", "APPLICATION_SUBMITTED", "/api/applications/" + id + "/submit", null);
        return db.business().queryForObject("select process_instance_id from application where id = ?", String.class, id);
    }

    /** Posts as {@code user} under a fresh key, expects success and one entry of {@code action} under that key. */
    private String act(String user, String action, String path, String body) {
        String requestId = key();
        Api.Response response = api.post(user, path, body, requestId);
        assertThat(response.status()).as(action + " " + response).isEqualTo(200);
        expected.add(requestId + " " + action + " " + user);
        return requestId;
    }

    /** Claim and unclaim take no Idempotency-Key: their entries name no request. */
    private void claimOrUnclaim(String user, String action, String path) {
        Api.Response response = api.post(user, path, null);
        assertThat(response.status()).as(action + " " + response).isEqualTo(200);
        expected.add("null " + action + " " + user);
    }

    /** Exactly the expected entries: one per request, with its action and actor, about this application. */
    private void assertOneEntryPerRequest(long id, List<Map<String, Object>> entries) {
        assertThat(entries.stream().map(entry -> entry.get("request_id") + " " + entry.get("action") + " " + entry.get("actor")))
                .containsExactlyInAnyOrderElementsOf(expected);
        assertThat(entries).allSatisfy(entry -> assertThat(entry).containsEntry("application_id", id));
    }

    private static List<Map<String, Object>> byAction(List<Map<String, Object>> entries, String action) {
        return entries.stream().filter(entry -> action.equals(entry.get("action"))).toList();
    }
}
