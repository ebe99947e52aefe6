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
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Issue 32's end-to-end evidence: applications run over HTTP through the shipped flows (the parallel legal and
 * finance review with a return to the manager; a countersign after a manager review: the shipped flows do not put both
 * in one application), each exported as its auditor would and verified offline against the installation's key. The
 * bundle holds exactly the entries the chain holds about the application, and its page names every decision's gtrid.
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
        Api.Response returned = api.post("carol", "/api/tasks/" + openTaskId(db, run, "legalReview") + "/return",
                "{\"targetActivityId\":\"managerApproval\",\"mode\":\"RERUN\",\"reason\":\"Wrong contract attached\"}", key());
        assertThat(returned.status()).as(returned.toString()).isEqualTo(200);
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
