package dev.lockstep.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.atomikos.icatch.event.transaction.ParticipantHeuristicEvent;
import com.atomikos.publish.EventPublisher;
import com.atomikos.recovery.TxState;
import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.platform.audit.AuditRecord;
import dev.lockstep.platform.audit.AuditTrail;
import dev.lockstep.platform.audit.AuditTrail.Chaining;
import dev.lockstep.support.Api;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.TestDatabases;
import dev.lockstep.transactions.xa.DecodedXid;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/**
 * The monitor and the four-eyes resolution against real prepared transactions on both embedded
 * servers, asserted through plain SQL. "lockstep-it.tm" is this service's own node name.
 */
@LockstepIntegrationTest
class InDoubtRecoveryTest {

    static final String SELF = "lockstep-it.tm";

    @Autowired TestDatabases databases;
    @Autowired Api api;
    @Autowired DatabaseEndpoints endpoints;
    @Autowired InDoubtMonitor monitor;
    @Autowired MeterRegistry meters;
    @Autowired AuditTrail audit;

    PreparedBranches prepared;

    @BeforeEach
    void setUp() {
        prepared = new PreparedBranches(endpoints);
    }

    @AfterEach
    void rollBackLeftovers() {
        PreparedBranches.rollBackAll(databases.business(), databases.workflow());
    }

    @Test
    void aStoppedNodesPreparedPairIsOneOrphanWithOwnerAndLocks() throws Exception {
        String gtrid = bothPrepared("gone-" + System.nanoTime() % 100000 + ".tm");

        JsonNode tx = inDoubt(gtrid);

        assertThat(tx.get("classification").asString()).isEqualTo("ORPHAN");
        assertThat(tx.get("recommendation").asString()).isEqualTo("MANUAL");
        assertThat(tx.get("ownerAlive").asBoolean()).isFalse();
        assertThat(tx.get("branches")).hasSize(2);
        JsonNode business = branch(tx, "business-db");
        assertThat(business.get("formatId").asInt()).isEqualTo(DecodedXid.ATOMIKOS_FORMAT_ID);
        assertThat(business.get("rawId").asString())
                .isEqualTo(databases.business().queryForObject("select gid from pg_prepared_xacts", String.class));
        assertThat(business.get("locks").findValuesAsString("relation")).contains("application");
        assertThat(branch(tx, "workflow-db").get("locks").findValuesAsString("lockType")).contains("advisory");
        assertThat(meters.get("lockstep.recovery.orphans").tag("resource", "business-db").gauge().value()).isEqualTo(1.0);
        assertThat(meters.get("lockstep.recovery.indoubt").tag("resource", "workflow-db").gauge().value()).isEqualTo(1.0);
    }

    @Test
    void aGidNotWrittenByPgjdbcIsShownRaw() {
        databases.business().execute("begin; prepare transaction 'made-by-hand'");

        JsonNode tx = inDoubt("raw:business-db:made-by-hand");

        assertThat(tx.get("classification").asString()).isEqualTo("ORPHAN");
        assertThat(tx.get("ownerTm").isNull()).isTrue();
        assertThat(branch(tx, "business-db").get("formatId").isNull()).isTrue();
    }

    @Test
    void aYoungTransactionOfALiveNodeIsInFlightAndCannotBeTouched() throws Exception {
        String own = bothPrepared(SELF);
        String other = "live-" + System.nanoTime() % 100000 + ".tm";
        Timestamp now = Timestamp.from(Instant.now());
        databases.business().update("insert into recovery_node (tm_name, started_at, heartbeat_at) values (?, ?, ?)",
                other, now, now);
        String othersGtrid = bothPrepared(other);

        JsonNode ownTx = inDoubt(own);
        assertThat(ownTx.get("classification").asString()).isEqualTo("IN_FLIGHT");
        assertThat(ownTx.get("recommendation").asString()).isEqualTo("ROLLBACK");
        assertThat(ownTx.get("evidence").toString()).contains("no commit decision was logged");
        assertThat(inDoubt(othersGtrid).get("classification").asString()).isEqualTo("IN_FLIGHT");

        Api.Response refused = api.post("dba1", "/api/recovery/resolutions", proposal(own, "ROLLBACK", "stuck?", false, null));
        assertThat(refused.status()).as(refused.toString()).isEqualTo(409);
        assertThat(refused.contentType()).startsWith("application/problem+json");
        assertThat(refused.json().get("code").asString()).isEqualTo("RECOVERY_OWNER_ALIVE");
        assertThat(preparedGids()).hasSize(4);
    }

    @Test
    void aNodeWhoseHeartbeatIsOldIsGone() throws Exception {
        String old = "stale-" + System.nanoTime() % 100000 + ".tm";
        Timestamp longAgo = Timestamp.from(Instant.now().minusSeconds(3600));
        databases.business().update("insert into recovery_node (tm_name, started_at, heartbeat_at) values (?, ?, ?)",
                old, longAgo, longAgo);
        String gtrid = bothPrepared(old);

        JsonNode tx = inDoubt(gtrid);

        assertThat(tx.get("classification").asString()).isEqualTo("ORPHAN");
        assertThat(tx.get("ownerAlive").asBoolean()).isFalse();
        assertThat(tx.get("evidence").toString()).contains("is gone");
    }

    @Test
    void fourEyesRollBackOfAWholeOrphanedTransaction() throws Exception {
        String gtrid = bothPrepared("gone-" + System.nanoTime() % 100000 + ".tm");
        long auditBefore = auditSize();

        Api.Response noReason = api.post("dba1", "/api/recovery/resolutions", proposal(gtrid, "ROLLBACK", " ", false, null));
        assertThat(noReason.status()).isEqualTo(400);
        assertThat(noReason.json().get("code").asString()).isEqualTo("RECOVERY_REASON_REQUIRED");

        Api.Response proposed = api.post("dba1", "/api/recovery/resolutions",
                proposal(gtrid, "ROLLBACK", "node decommissioned, no intent journaled", false, null));
        assertThat(proposed.status()).as(proposed.toString()).isEqualTo(200);
        long id = proposed.json().get("id").asLong();

        Api.Response tooEarly = api.post("dba2", "/api/recovery/resolutions/" + id + "/execute", null);
        assertThat(tooEarly.json().get("code").asString()).isEqualTo("RECOVERY_NOT_APPROVED");
        Api.Response self = api.post("dba1", "/api/recovery/resolutions/" + id + "/approve", null);
        assertThat(self.status()).isEqualTo(403);
        assertThat(self.json().get("code").asString()).isEqualTo("RECOVERY_SAME_APPROVER");
        assertThat(api.post("audrey", "/api/recovery/resolutions/" + id + "/approve", null).status()).isEqualTo(403);
        assertThat(preparedGids()).hasSize(2);

        assertThat(api.post("dba2", "/api/recovery/resolutions/" + id + "/approve", null).status()).isEqualTo(200);
        Api.Response executed = api.post("dba1", "/api/recovery/resolutions/" + id + "/execute", null);

        assertThat(executed.status()).as(executed.toString()).isEqualTo(200);
        assertThat(executed.json().get("status").asString()).isEqualTo("EXECUTED");
        assertThat(preparedGids()).isEmpty();
        assertThat(databases.business().queryForObject("select count(*) from application where title = 'in-doubt test'",
                Integer.class)).isZero();
        assertThat(databases.business().queryForList(
                "select intended || ' ' || outcome from recovery_branch_outcome where resolution_id = ?", String.class, id))
                .containsExactly("ROLLBACK ROLLED_BACK", "ROLLBACK ROLLED_BACK");
        assertThat(databases.business().queryForList(
                "select action from recovery_audit where seq > ? order by seq", String.class, auditBefore))
                .containsExactly("PROPOSED", "APPROVED", "EXECUTION_STARTED", "BRANCH_INTENDED", "BRANCH_ENDED",
                        "BRANCH_INTENDED", "BRANCH_ENDED", "EXECUTED");
        assertThat(api.get("audrey", "/api/recovery/audit/verify").json().get("intact").asBoolean()).isTrue();
    }

    /**
     * An archival batch, a repair or a termination audits inside its two-phase transaction. Left prepared by a
     * halted node, such a branch must not block the console that resolves it (issue 29, item 1): before the
     * audit intake, it held a lock on recovery_audit that every audited write, the console's included, waited on.
     */
    @Test
    void theConsoleRollsBackAnInDoubtBranchThatAuditedItsAction() throws Exception {
        String tm = "gone-" + System.nanoTime() % 100000 + ".tm";
        String gtrid = PreparedBranches.newGtrid(tm);
        prepared.prepareOnBusiness(PreparedBranches.atomikosXid(tm, gtrid),
                connection -> audit.append(connection, AuditRecord.control("archival", "HISTORY_ARCHIVED", null, "in-doubt batch " + gtrid),
                        Chaining.AFTER_COMMIT));
        String gid = databases.business().queryForObject("select gid from pg_prepared_xacts", String.class);
        long auditBefore = auditSize();

        long id = proposeApprove(gtrid, "business-db", gid, "ROLLBACK");
        Api.Response executed = api.post("dba1", "/api/recovery/resolutions/" + id + "/execute", null);

        assertThat(executed.status()).as(executed.toString()).isEqualTo(200);
        assertThat(executed.json().get("status").asString()).isEqualTo("EXECUTED");
        assertThat(preparedGids()).isEmpty();
        assertThat(databases.business().queryForList("select action from recovery_audit where seq > ? order by seq",
                String.class, auditBefore))
                .containsExactly("PROPOSED", "APPROVED", "EXECUTION_STARTED", "BRANCH_INTENDED", "BRANCH_ENDED", "EXECUTED");
        assertThat(databases.business().queryForObject("select count(*) from recovery_audit_intake where detail = ?",
                Integer.class, "in-doubt batch " + gtrid)).as("the rolled-back action's entry").isZero();
    }

    /** Committed by the console, the branch's audit entry joins the chain, after the console's own entries, intact. */
    @Test
    void anInDoubtBranchCommittedByTheConsoleHasItsAuditEntryChained() throws Exception {
        String tm = "gone-" + System.nanoTime() % 100000 + ".tm";
        String gtrid = PreparedBranches.newGtrid(tm);
        String detail = "in-doubt repair " + gtrid;
        prepared.prepareOnBusiness(PreparedBranches.atomikosXid(tm, gtrid),
                connection -> audit.append(connection, AuditRecord.control("reconciler", "REPAIRED", null, detail), Chaining.AFTER_COMMIT));
        String gid = databases.business().queryForObject("select gid from pg_prepared_xacts", String.class);

        long id = proposeApprove(gtrid, "business-db", gid, "COMMIT");
        Api.Response executed = api.post("dba1", "/api/recovery/resolutions/" + id + "/execute", null);
        assertThat(executed.status()).as(executed.toString()).isEqualTo(200);
        assertThat(api.get("audrey", "/api/recovery/audit").status()).isEqualTo(200);

        Long chainedSeq = databases.business().queryForObject(
                "select chained_seq from recovery_audit_intake where detail = ?", Long.class, detail);
        assertThat(chainedSeq).as("chained when the trail was read").isNotNull();
        assertThat(databases.business().queryForMap("select actor, action, detail from recovery_audit where seq = ?", chainedSeq))
                .containsEntry("actor", "reconciler").containsEntry("action", "REPAIRED").containsEntry("detail", detail);
        assertThat(databases.business().queryForObject(
                "select max(seq) from recovery_audit where detail like ?", Long.class, "resolution #" + id + "%"))
                .as("the console's entries came first").isLessThan(chainedSeq);
        assertThat(api.get("audrey", "/api/recovery/audit/verify").json().get("intact").asBoolean()).isTrue();
        assertThatThrownBy(() -> databases.business().update("update recovery_audit_intake set detail = 'forged' where detail = ?", detail))
                .hasStackTraceContaining("recovery_audit_intake only takes chained_seq");
    }

    @Test
    void aCommittedBranchMakesItsSiblingAnAnomalyAndASplitOutcomeNeedsAnOverride() throws Exception {
        String owner = "gone-" + System.nanoTime() % 100000 + ".tm";
        String gtrid = bothPrepared(owner);
        JsonNode before = inDoubt(gtrid);
        String businessGid = branch(before, "business-db").get("rawId").asString();
        String workflowGid = branch(before, "workflow-db").get("rawId").asString();

        long commitBusiness = proposeApprove(gtrid, "business-db", businessGid, "COMMIT");
        assertThat(api.post("dba2", "/api/recovery/resolutions/" + commitBusiness + "/execute", null).status()).isEqualTo(200);
        assertThat(databases.business().queryForObject("select count(*) from application where title = 'in-doubt test'",
                Integer.class)).isEqualTo(1);

        JsonNode after = inDoubt(gtrid);
        assertThat(after.get("classification").asString()).isEqualTo("ANOMALY");
        assertThat(after.get("recommendation").asString()).isEqualTo("COMMIT");
        assertThat(after.get("missingResources").toString()).contains("business-db");

        String rollbackWorkflow = proposalForBranch(gtrid, "workflow-db", workflowGid, "ROLLBACK", false, null);
        Api.Response mixed = api.post("dba1", "/api/recovery/resolutions", rollbackWorkflow);
        assertThat(mixed.status()).isEqualTo(409);
        assertThat(mixed.json().get("code").asString()).isEqualTo("RECOVERY_MIXED_OUTCOME");
        Api.Response noJustification = api.post("dba1", "/api/recovery/resolutions",
                proposalForBranch(gtrid, "workflow-db", workflowGid, "ROLLBACK", true, " "));
        assertThat(noJustification.json().get("code").asString()).isEqualTo("RECOVERY_JUSTIFICATION_REQUIRED");
        Api.Response overridden = api.post("dba1", "/api/recovery/resolutions",
                proposalForBranch(gtrid, "workflow-db", workflowGid, "ROLLBACK", true, "engine rows rebuilt by hand, ticket 17"));
        assertThat(overridden.status()).as(overridden.toString()).isEqualTo(200);
        assertThat(overridden.json().get("override").asBoolean()).isTrue();
        assertThat(preparedGids()).containsExactly(workflowGid);
        databases.business().update("delete from application where title = 'in-doubt test'");
    }

    @Test
    void theAuditTrailRefusesChangesAndVerifyFindsATamperedRow() throws Exception {
        String gtrid = bothPrepared("gone-" + System.nanoTime() % 100000 + ".tm");
        assertThat(api.post("dba1", "/api/recovery/resolutions", proposal(gtrid, "ROLLBACK", "tamper test", false, null))
                .status()).isEqualTo(200);
        long seq = auditSize();

        assertThatThrownBy(() -> databases.business().update("update recovery_audit set actor = 'mallory' where seq = ?", seq))
                .rootCause().hasMessageContaining("append-only");
        assertThatThrownBy(() -> databases.business().update("delete from recovery_audit where seq = ?", seq))
                .rootCause().hasMessageContaining("append-only");

        String original = databases.business().queryForObject("select detail from recovery_audit where seq = ?", String.class, seq);
        tamper(seq, "resolution #0 COMMIT all branches");
        try {
            JsonNode verification = api.get("audrey", "/api/recovery/audit/verify").json();
            assertThat(verification.get("intact").asBoolean()).isFalse();
            assertThat(verification.get("brokenAtSeq").asLong()).isEqualTo(seq);
        } finally {
            tamper(seq, original);
        }
        assertThat(api.get("audrey", "/api/recovery/audit/verify").json().get("intact").asBoolean()).isTrue();
    }

    @Test
    void aHeuristicOutcomeReportedByAtomikosIsRecordedAndMakesItsTransactionAnAnomaly() throws Exception {
        String gtrid = bothPrepared(SELF);
        EventPublisher.INSTANCE.publish(new ParticipantHeuristicEvent(gtrid, "workflow-db branch", TxState.HEUR_MIXED));

        assertThat(databases.business().queryForObject("select state from recovery_heuristic_event where gtrid = ?",
                String.class, gtrid)).isEqualTo("HEUR_MIXED");
        JsonNode tx = inDoubt(gtrid);
        assertThat(tx.get("classification").asString()).isEqualTo("ANOMALY");
        assertThat(tx.get("recommendation").asString()).isEqualTo("MANUAL");
        assertThat(api.get("dba1", "/api/recovery/heuristics").json().findValuesAsString("gtrid")).contains(gtrid);
    }

    @Test
    void theHealthComponentReportsTheLatestScan() {
        Api.Response health = api.get("erin", "/actuator/health");
        assertThat(health.json().at("/components/inDoubtTransactions/status").asString()).isEqualTo("UP");
    }

    /** A superuser bypassing the trigger, as an attacker with database access would. */
    private void tamper(long seq, String detail) {
        databases.business().execute("""
                do $$ begin
                  perform set_config('session_replication_role', 'replica', true);
                  update recovery_audit set detail = %s where seq = %d;
                end $$""".formatted("'" + detail.replace("'", "''") + "'", seq));
    }

    private long proposeApprove(String gtrid, String resource, String rawId, String action) {
        Api.Response proposed = api.post("dba1", "/api/recovery/resolutions",
                proposalForBranch(gtrid, resource, rawId, action, false, null));
        assertThat(proposed.status()).as(proposed.toString()).isEqualTo(200);
        long id = proposed.json().get("id").asLong();
        assertThat(api.post("dba2", "/api/recovery/resolutions/" + id + "/approve", null).status()).isEqualTo(200);
        return id;
    }

    private String bothPrepared(String tm) throws Exception {
        String gtrid = PreparedBranches.newGtrid(tm);
        prepared.prepareOnBusiness(PreparedBranches.atomikosXid(tm, gtrid));
        prepared.prepareOnWorkflow(PreparedBranches.atomikosXid(tm, gtrid));
        return gtrid;
    }

    private JsonNode inDoubt(String gtrid) {
        Api.Response response = api.get("dba1", "/api/recovery/in-doubt?refresh=true");
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        for (JsonNode tx : response.json().get("transactions")) {
            if (tx.get("gtrid").asString().equals(gtrid)) {
                return tx;
            }
        }
        throw new AssertionError("no in-doubt transaction " + gtrid + " in " + response.body());
    }

    private static JsonNode branch(JsonNode tx, String resource) {
        for (JsonNode branch : tx.get("branches")) {
            if (branch.get("resource").asString().equals(resource)) {
                return branch;
            }
        }
        throw new AssertionError("no branch on " + resource + " in " + tx);
    }

    private List<String> preparedGids() {
        return databases.preparedTransactions().stream().map(row -> (String) row.get("gid")).toList();
    }

    /** Chains first: earlier tests' decisions wait in the intake, and must not join the chain among this test's entries. */
    private long auditSize() {
        audit.chain();
        return databases.business().queryForObject("select coalesce(max(seq), 0) from recovery_audit", Long.class);
    }

    private static String proposal(String gtrid, String action, String reason, boolean override, String justification) {
        return """
                {"gtrid": %s, "action": "%s", "reason": %s, "override": %s, "justification": %s}
                """.formatted(quote(gtrid), action, quote(reason), override, quote(justification));
    }

    private static String proposalForBranch(String gtrid, String resource, String rawId, String action, boolean override,
            String justification) {
        return """
                {"gtrid": %s, "resource": %s, "rawId": %s, "action": "%s", "reason": "per-branch decision", "override": %s,
                 "justification": %s}
                """.formatted(quote(gtrid), quote(resource), quote(rawId), action, override, quote(justification));
    }

    private static String quote(String text) {
        return text == null ? "null" : "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

}
