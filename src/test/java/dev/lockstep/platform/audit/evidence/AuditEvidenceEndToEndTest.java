package dev.lockstep.platform.audit.evidence;

import static dev.lockstep.approval.ApiFlows.createDraft;
import static dev.lockstep.approval.ApiFlows.decideStep;
import static dev.lockstep.approval.ApiFlows.key;
import static dev.lockstep.approval.ApiFlows.openTaskId;
import static dev.lockstep.approval.ApiFlows.submit;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.platform.audit.AuditTrail;
import dev.lockstep.support.Api;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.TestDatabases;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Issue 32's end-to-end evidence: applications run over HTTP through the shipped flows (the parallel legal and
 * finance review with a return to the manager; a countersign after a manager review) and through a deployed flow that
 * has all three in one application, each exported as its auditor would and verified offline against the
 * installation's key. The bundle holds exactly the entries the chain holds about the application, and its page names
 * every decision's gtrid.
 */
@LockstepIntegrationTest
class AuditEvidenceEndToEndTest {

    private static final Path BUNDLES = Path.of("target/audit-bundles");

    @Autowired
    Api api;

    @Autowired
    TestDatabases db;

    @Autowired
    AuditTrail trail;

    @Autowired
    SigningKey key;

    @Test
    void anApplicationThroughParallelReviewAndAReturnIsExportedAndVerifies() throws IOException {
        long id = createDraft(api, "LOW", true);
        String run = submit(api, id);
        decideStep(api, db, "bob", run, "managerApproval", "APPROVE");
        returnToTheManager("carol", run, "legalReview");
        decideStep(api, db, "bob", run, "managerApproval", "APPROVE");
        decideStep(api, db, "carol", run, "legalReview", "APPROVE");
        decideStep(api, db, "dave", run, "financeReview", "APPROVE");
        decideStep(api, db, "frank", run, "finalApproval", "APPROVE");

        String page = exportVerifyAndRead(id);

        assertThat(page).contains("APPLICATION_CREATED", "TASK_RETURNED", "returned to Manager approval (managerApproval, RERUN)",
                "Finance review", "Legal review", "TASK_APPROVED");
    }

    @Test
    void aCountersignedApplicationIsExportedAndVerifies() throws IOException {
        Api.Response created = api.post("alice", "/api/applications", """
                {"title": "Data-sharing agreement", "assetId": 7, "amount": 50000, "riskLevel": "LOW", "sensitive": false,
                 "countersign": {"signers": ["bob", "carol", "dave"], "policy": "ALL", "ratio": null, "managerReview": true}}
                """);
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        long id = created.json().get("id").asLong();
        String run = submit(api, id);
        decideStep(api, db, "bob", run, "managerApproval", "APPROVE");
        for (String signer : List.of("bob", "carol", "dave")) {
            String task = db.workflow().queryForObject("select id_ from act_ru_task where proc_inst_id_ = ? and assignee_ = ?",
                    String.class, run, signer);
            Api.Response voted = api.post(signer, "/api/tasks/" + task + "/complete", "{\"decision\":\"APPROVE\"}", key());
            assertThat(voted.status()).as(voted.toString()).isEqualTo(200);
        }

        String page = exportVerifyAndRead(id);

        assertThat(page.split("COUNTERSIGN_VOTED", -1)).hasSize(4);
    }

    /** A manager's approval, a parallel legal and finance review, a director's approval, then the owners' countersign. */
    private static final String REVIEW_AND_COUNTERSIGN_FLOW = """
            {"name": "Vendor onboarding", "steps": [
              {"id": "managerApproval", "name": "Manager approval", "candidateGroups": ["managers"]},
              {"id": "reviews", "parallel": [[{"id": "legalReview", "name": "Legal review", "candidateGroups": ["legal"]}],
                                             [{"id": "financeReview", "name": "Finance review", "candidateGroups": ["finance"]}]]},
              {"id": "finalApproval", "name": "Final approval", "candidateGroups": ["directors"], "returnTo": ["managerApproval"]},
              {"id": "countersign", "name": "Owners countersign", "countersign": {"policy": "ALL"}}]}""";

    @Test
    void oneApplicationThroughParallelReviewAReturnAndACountersignOnADeployedFlowIsExportedAndVerifies() throws IOException {
        String type = "EVIDENCE_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8).toUpperCase(Locale.ROOT);
        Api.Response registered = api.post("erin", "/api/business-types", """
                {"key": "%s", "name": "Vendor onboarding", "routableFields": ["amount"], "publishes": false,
                 "schema": {"type": "object", "required": ["amount"], "properties": {"amount": {"type": "number"}}}}"""
                .formatted(type));
        assertThat(registered.status()).as(registered.toString()).isEqualTo(201);
        assertThat(api.post("erin", "/api/business-types/" + type + "/definitions", REVIEW_AND_COUNTERSIGN_FLOW).status())
                .isEqualTo(201);
        Api.Response activated = api.post("grace", "/api/business-types/" + type + "/definitions/1/approve", null);
        assertThat(activated.status()).as(activated.toString()).isEqualTo(200);
        Api.Response created = api.post("alice", "/api/applications", """
                {"type": "%s", "title": "Onboard Acme", "fields": {"amount": 12}, "signers": ["grace", "erin"]}"""
                .formatted(type));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        long id = created.json().get("id").asLong();

        String run = submit(api, id);
        decideStep(api, db, "bob", run, "managerApproval", "APPROVE");
        decideStep(api, db, "carol", run, "legalReview", "APPROVE");
        decideStep(api, db, "dave", run, "financeReview", "APPROVE");
        returnToTheManager("frank", run, "finalApproval");
        decideStep(api, db, "bob", run, "managerApproval", "APPROVE");
        decideStep(api, db, "carol", run, "legalReview", "APPROVE");
        decideStep(api, db, "dave", run, "financeReview", "APPROVE");
        decideStep(api, db, "frank", run, "finalApproval", "APPROVE");
        for (String signer : List.of("grace", "erin")) {
            String task = db.workflow().queryForObject("select id_ from act_ru_task where proc_inst_id_ = ? and assignee_ = ?"
                    + " and task_def_key_ = 'countersign'", String.class, run, signer);
            Api.Response voted = api.post(signer, "/api/tasks/" + task + "/complete", "{\"decision\":\"APPROVE\"}", key());
            assertThat(voted.status()).as(voted.toString()).isEqualTo(200);
        }
        assertThat(db.business().queryForObject("select approval_status from application where id = ?", String.class, id))
                .isEqualTo("APPROVED");

        String page = exportVerifyAndRead(id);

        assertThat(page).contains(type + " v1", "TASK_RETURNED", "Legal review", "Finance review", "TASK_APPROVED");
        assertThat(page.split("COUNTERSIGN_VOTED", -1)).hasSize(3);
    }

    /** {@code user} sends the run's open {@code step} back to the manager's approval, to be run again from there. */
    private void returnToTheManager(String user, String run, String step) {
        Api.Response returned = api.post(user, "/api/tasks/" + openTaskId(db, run, step) + "/return",
                "{\"targetActivityId\":\"managerApproval\",\"mode\":\"RERUN\",\"reason\":\"Wrong contract attached\"}", key());
        assertThat(returned.status()).as(returned.toString()).isEqualTo(200);
    }

    /** Exports the application as auditor, verifies it with the installation's key and returns its timeline page. */
    private String exportVerifyAndRead(long id) throws IOException {
        Path bundle = Evidence.export(api, "applicationId=" + id, BUNDLES);
        Evidence.Verified verified = Evidence.verify(bundle, "--key", key.publicKey());
        assertThat(verified.exitCode()).as(verified.output()).isZero();

        List<String> gtrids = db.business().queryForList("select gtrid from recovery_audit where application_id = ?"
                + " and gtrid is not null order by seq", String.class, id);
        long entries = db.business().queryForObject("select count(*) from recovery_audit where application_id = ?", Long.class, id);
        assertThat(gtrids).as("the decisions committed by XA name their transaction").isNotEmpty();
        assertThat(AuditExportTest.manifest(bundle).path("counts").path("full_entries").asLong()).isEqualTo(entries);
        String page = AuditExportTest.read(bundle, BundleFormat.APPLICATIONS + id + ".html");
        assertThat(page).contains(gtrids);
        return page;
    }
}
