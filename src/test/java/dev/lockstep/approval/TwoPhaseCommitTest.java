package dev.lockstep.approval;

import static org.assertj.core.api.Assertions.assertThat;

import com.atomikos.icatch.jta.UserTransactionManager;
import dev.lockstep.support.Api;
import dev.lockstep.support.PreparedBranchProbe;
import dev.lockstep.support.UseCaseIntegrationTest;
import java.util.Base64;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Submit is one global transaction over both databases: proven by watching both branches sit
 * prepared before the commit, and by breaking the transaction at several points and finding
 * nothing of the request in either database afterwards.
 */
class TwoPhaseCommitTest extends UseCaseIntegrationTest {

    private static final int ATOMIKOS_FORMAT_ID = 1096044365;

    @Autowired
    UserTransactionManager transactionManager;

    @Test
    void submitPreparesABranchOnEachDatabaseUnderOneGlobalIdThenCommitsBoth() {
        long id = ApiFlows.createDraft(api, "LOW", false);
        PreparedBranchProbe probe = new PreparedBranchProbe(db);
        faults.afterCall("applicationRepository", "markApproving", () -> probe.enlistIn(transactionManager));

        String key = UUID.randomUUID().toString();
        Api.Response submitted = api.post("alice", "/api/applications/" + id + "/submit", null, key);

        assertThat(submitted.status()).as(submitted.toString()).isEqualTo(200);
        String gtrid = Base64.getEncoder().encodeToString(probe.xid().getGlobalTransactionId());
        assertThat(probe.seenAtPrepare())
                .as("while the probe prepared, both database branches of the same global transaction were prepared")
                .extracting(row -> row.get("database"))
                .contains("lockstep_business", "lockstep_workflow");
        assertThat(probe.seenAtPrepare())
                .filteredOn(row -> row.get("gid").toString().startsWith(ATOMIKOS_FORMAT_ID + "_" + gtrid + "_"))
                .extracting(row -> row.get("database"))
                .containsExactlyInAnyOrder("lockstep_business", "lockstep_workflow");
        assertThat(probe.committed()).isTrue();
        assertThat(db.preparedTransactions()).isEmpty();
        assertThat(db.business().queryForMap("select use_case, business_key, request_id, user_id, status from recovery_intent"
                + " where gtrid = ?", new String(probe.xid().getGlobalTransactionId(), java.nio.charset.StandardCharsets.US_ASCII)))
                .as("the business intent of the global transaction, journaled for the in-doubt monitor")
                .containsEntry("use_case", "submit").containsEntry("business_key", Long.toString(id))
                .containsEntry("request_id", key).containsEntry("user_id", "alice").containsEntry("status", "COMMITTED");
        String processInstanceId = submitted.json().get("processInstanceId").asString();
        assertThat(db.business().queryForObject("select approval_status from application where id = ?", String.class, id))
                .isEqualTo("APPROVING");
        assertThat(db.workflow().queryForObject("select count(*) from act_ru_task where proc_inst_id_ = ?", Integer.class,
                processInstanceId)).isEqualTo(1);
    }

    @Test
    void faultAfterTheEngineStartedTheProcessBeforeAnyBusinessWriteLeavesNothingInEitherDatabase() {
        long id = ApiFlows.createDraft(api, "LOW", false);
        Map<String, Object> before = applicationRow(id);
        faults.failAfter("approvalProcess", "start");

        Api.Response response = submit(id, "fault-after-engine-" + id);

        assertThat(response.status()).isEqualTo(500);
        assertNothingOfTheSubmissionIn(id, before, "fault-after-engine-" + id);
    }

    @Test
    void faultAfterTheLastBusinessWriteLeavesNothingInEitherDatabase() {
        long id = ApiFlows.createDraft(api, "HIGH", true);
        Map<String, Object> before = applicationRow(id);
        faults.failAfter("applicationRepository", "markApproving");

        Api.Response response = submit(id, "fault-after-business-" + id);

        assertThat(response.status()).isEqualTo(500);
        assertNothingOfTheSubmissionIn(id, before, "fault-after-business-" + id);
    }

    @Test
    void aConstraintOnlyTheBusinessDatabaseChecksAtPrepareRollsBackTheWorkflowBranchToo() {
        long id = ApiFlows.createDraft(api, "LOW", false);
        // A stray binding already holds lifecycle 1: the deferred unique constraint fires at PREPARE.
        db.business().update("insert into business_process_binding (business_type, business_id, process_type,"
                + " process_instance_id, process_definition_id, lifecycle_no, binding_status, created_at)"
                + " values ('APPLICATION', ?, 'APPROVAL', ?, 'stray', 1, 'REJECTED', now())", Long.toString(id), "stray-" + id);
        Map<String, Object> before = applicationRow(id);

        Api.Response response = submit(id, "prepare-refused-" + id);

        assertThat(response.status()).as(response.toString()).isEqualTo(409);
        assertThat(response.json().get("code").asString()).isEqualTo("TRANSACTION_ROLLED_BACK");
        assertThat(db.business().queryForObject("select count(*) from business_process_binding where business_id = ?",
                Integer.class, Long.toString(id))).as("only the stray binding").isEqualTo(1);
        assertNothingOfTheSubmissionIn(id, before, "prepare-refused-" + id);
    }

    @Test
    void faultAfterTheEngineCompletedATaskBeforeTheApprovalRecordLeavesTheTaskOpen() {
        long id = ApiFlows.createDraft(api, "LOW", false);
        String processInstanceId = submit(id, UUID.randomUUID().toString()).json().get("processInstanceId").asString();
        String taskId = db.workflow().queryForObject("select id_ from act_ru_task where proc_inst_id_ = ?", String.class,
                processInstanceId);
        Map<String, Object> before = applicationRow(id);
        faults.failAfter("approvalProcess", "complete");

        Api.Response response = api.post("bob", "/api/tasks/" + taskId + "/complete", "{\"decision\":\"APPROVE\"}",
                "fault-on-complete-" + id);

        assertThat(response.status()).isEqualTo(500);
        assertThat(applicationRow(id)).isEqualTo(before);
        assertThat(db.workflow().queryForObject("select count(*) from act_ru_task where id_ = ? and assignee_ is null",
                Integer.class, taskId)).as("task still open and unclaimed").isEqualTo(1);
        assertThat(db.workflow().queryForObject("select count(*) from act_hi_taskinst where id_ = ? and end_time_ is not null",
                Integer.class, taskId)).isZero();
        assertThat(db.business().queryForObject("select count(*) from approval_record where application_id = ?", Integer.class, id))
                .isZero();
        assertThat(db.business().queryForObject("select count(*) from workflow_command where request_id = ?", Integer.class,
                "fault-on-complete-" + id)).isZero();
        assertThat(db.preparedTransactions()).isEmpty();
    }

    private Api.Response submit(long id, String key) {
        return api.post("alice", "/api/applications/" + id + "/submit", null, key);
    }

    private void assertNothingOfTheSubmissionIn(long id, Map<String, Object> before, String key) {
        assertThat(applicationRow(id)).as("application row untouched").isEqualTo(before);
        assertThat(db.business().queryForObject("select count(*) from business_process_binding where business_id = ?"
                + " and binding_status = 'ACTIVE'", Integer.class, Long.toString(id))).isZero();
        assertThat(db.business().queryForObject("select count(*) from workflow_command where request_id = ?", Integer.class, key))
                .isZero();
        assertThat(db.engineRowsForBusinessKey(id)).as("no ACT_RU_*/ACT_HI_* rows for the business key").isZero();
        assertThat(db.workflow().queryForObject("select count(*) from act_ru_variable v join act_ru_execution e"
                + " on v.proc_inst_id_ = e.proc_inst_id_ where e.business_key_ = ?", Integer.class, Long.toString(id))).isZero();
        assertThat(db.preparedTransactions()).as("no branch left prepared on either server").isEmpty();
    }

    private Map<String, Object> applicationRow(long id) {
        return db.business().queryForMap("select * from application where id = ?", id);
    }
}
