package dev.lockstep.approval;

import static dev.lockstep.approval.ApiFlows.complete;
import static dev.lockstep.approval.ApiFlows.submit;
import static dev.lockstep.approval.todo.ProjectionAssertions.assertProjectionEqualsRebuild;
import static dev.lockstep.approval.todo.ProjectionAssertions.row;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.support.Api;
import dev.lockstep.support.UseCaseIntegrationTest;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Multi-instance countersign (会签) under each policy: outcome, closed siblings, engine state and projection. */
class CountersignTest extends UseCaseIntegrationTest {

    private static final String CLOSED_BY_POLICY = "Multi-instance complete condition expression passed";


    @Test
    void oneVetoRejectsAtOnceAndClosesTheOutstandingSigners() {
        long id = createCountersign("\"ONE_VETO\"", null);
        String processInstanceId = submit(api, id);
        Map<String, String> tasks = signerTasks(processInstanceId);
        assertThat(tasks).containsOnlyKeys("bob", "carol", "dave");
        assertThat(loopVariable(processInstanceId, "nrOfInstances")).isEqualTo("3");

        assertThat(complete(api, "bob", tasks.get("bob"), "APPROVE").status()).isEqualTo(200);
        assertThat(loopVariable(processInstanceId, "nrOfActiveInstances")).isEqualTo("2");
        assertThat(status(id)).isEqualTo("APPROVING");
        assertThat(complete(api, "carol", tasks.get("carol"), "REJECT").status()).isEqualTo(200);

        assertThat(status(id)).isEqualTo("REJECTED");
        assertNoExecutionsLeft(processInstanceId);
        assertThat(row(db, tasks.get("dave"))).containsEntry("state", "CANCELED").containsEntry("end_reason", CLOSED_BY_POLICY);
        Api.Response late = complete(api, "dave", tasks.get("dave"), "APPROVE");
        assertThat(late.status()).isEqualTo(409);
        assertThat(late.json().get("code").asString()).isEqualTo("TASK_ALREADY_COMPLETED");
        assertProjectionEqualsRebuild(api, db);
    }

    @Test
    void allWaitsForEverySignerAndOneRejectionRejects() {
        long rejected = createCountersign("\"ALL\"", null);
        String first = submit(api, rejected);
        Map<String, String> tasks = signerTasks(first);
        assertThat(complete(api, "carol", tasks.get("carol"), "REJECT").status()).isEqualTo(200);
        assertThat(status(rejected)).as("ALL lets everyone sign").isEqualTo("APPROVING");
        assertThat(complete(api, "bob", tasks.get("bob"), "APPROVE").status()).isEqualTo(200);
        assertThat(complete(api, "dave", tasks.get("dave"), "APPROVE").status()).isEqualTo(200);
        assertThat(status(rejected)).isEqualTo("REJECTED");
        assertNoExecutionsLeft(first);

        long approved = createCountersign("\"ALL\"", null);
        String second = submit(api, approved);
        signerTasks(second).forEach((signer, task) -> assertThat(complete(api, signer, task, "APPROVE").status()).isEqualTo(200));
        assertThat(status(approved)).isEqualTo("APPROVED");
        assertNoExecutionsLeft(second);
        assertThat(db.business().queryForObject("select count(*) from approval_record where application_id = ?", Integer.class,
                approved)).isEqualTo(3);
        assertProjectionEqualsRebuild(api, db);
    }

    @Test
    void ratioApprovesWhenReachedAndAVetoAfterThatIsTooLate() {
        long id = createCountersign("\"RATIO\"", "0.60");
        String processInstanceId = submit(api, id);
        Map<String, String> tasks = signerTasks(processInstanceId);

        assertThat(complete(api, "bob", tasks.get("bob"), "APPROVE").status()).isEqualTo(200);
        assertThat(status(id)).isEqualTo("APPROVING");
        assertThat(complete(api, "dave", tasks.get("dave"), "APPROVE").status()).isEqualTo(200);

        assertThat(status(id)).as("2 of 3 reach 60%").isEqualTo("APPROVED");
        assertThat(row(db, tasks.get("carol"))).containsEntry("state", "CANCELED").containsEntry("end_reason", CLOSED_BY_POLICY);
        assertThat(complete(api, "carol", tasks.get("carol"), "REJECT").status()).isEqualTo(409);
        assertNoExecutionsLeft(processInstanceId);
        assertProjectionEqualsRebuild(api, db);
    }

    @Test
    void ratioRejectsAsSoonAsItCanNoLongerBeReached() {
        long id = createCountersign("\"RATIO\"", "0.60");
        String processInstanceId = submit(api, id);
        Map<String, String> tasks = signerTasks(processInstanceId);

        assertThat(complete(api, "bob", tasks.get("bob"), "REJECT").status()).isEqualTo(200);
        assertThat(status(id)).as("2 of the remaining 2 could still reach 60%").isEqualTo("APPROVING");
        assertThat(complete(api, "carol", tasks.get("carol"), "REJECT").status()).isEqualTo(200);

        assertThat(status(id)).isEqualTo("REJECTED");
        assertThat(row(db, tasks.get("dave"))).containsEntry("state", "CANCELED");
        assertNoExecutionsLeft(processInstanceId);
    }

    @Test
    void anAddedSignerGetsATaskRaisesTheInstanceCountsAndMustSignToo() {
        long id = createCountersign("\"ALL\"", null);
        String processInstanceId = submit(api, id);
        Map<String, String> tasks = signerTasks(processInstanceId);
        assertThat(addSigner("alice", id, "frank").json().get("code").asString()).isEqualTo("APPLICANT_CANNOT_DECIDE");
        assertThat(addSigner("bob", id, "carol").json().get("code").asString()).isEqualTo("ALREADY_A_SIGNER");

        Api.Response added = addSigner("bob", id, "frank");

        assertThat(added.status()).as(added.toString()).isEqualTo(200);
        String frank = signerTasks(processInstanceId).get("frank");
        assertThat(frank).isNotNull();
        assertThat(loopVariable(processInstanceId, "nrOfInstances")).isEqualTo("4");
        assertThat(loopVariable(processInstanceId, "nrOfActiveInstances")).isEqualTo("4");
        assertThat(row(db, frank)).containsEntry("state", "OPEN").containsEntry("assignee", "frank");
        assertThat(db.business().queryForList("select kind, to_user, acted_by from task_handover where task_id = ?", frank))
                .containsExactly(Map.of("kind", "ADD_SIGNER", "to_user", "frank", "acted_by", "bob"));
        tasks.forEach((signer, task) -> assertThat(complete(api, signer, task, "APPROVE").status()).isEqualTo(200));
        assertThat(status(id)).as("frank has not signed yet").isEqualTo("APPROVING");
        assertThat(complete(api, "frank", frank, "APPROVE").status()).isEqualTo(200);
        assertThat(status(id)).isEqualTo("APPROVED");
        assertNoExecutionsLeft(processInstanceId);
        assertProjectionEqualsRebuild(api, db);
    }

    @Test
    void removingASignerLowersTheCountsAndRemovingTheLastOutstandingOneDecidesTheStep() {
        long id = createCountersign("\"ONE_VETO\"", null);
        String processInstanceId = submit(api, id);
        Map<String, String> tasks = signerTasks(processInstanceId);

        assertThat(removeSigner("erin", id, "carol").status()).isEqualTo(200);
        assertThat(loopVariable(processInstanceId, "nrOfInstances")).isEqualTo("2");
        assertThat(loopVariable(processInstanceId, "nrOfActiveInstances")).isEqualTo("2");
        assertThat(row(db, tasks.get("carol"))).containsEntry("state", "CANCELED").containsEntry("end_reason", "Signer carol removed by erin");
        assertThat(removeSigner("erin", id, "carol").json().get("code").asString()).isEqualTo("NOT_AN_OUTSTANDING_SIGNER");
        assertThat(status(id)).isEqualTo("APPROVING");

        assertThat(complete(api, "bob", tasks.get("bob"), "APPROVE").status()).isEqualTo(200);
        Api.Response byFinishedSigner = removeSigner("bob", id, "dave");
        assertThat(byFinishedSigner.status()).as("bob has no open task left").isEqualTo(403);
        Api.Response decided = removeSigner("erin", id, "dave");

        assertThat(decided.status()).as(decided.toString()).isEqualTo(200);
        assertThat(decided.json().get("approvalStatus").asString()).as("bob, the only remaining signer, approved").isEqualTo("APPROVED");
        assertNoExecutionsLeft(processInstanceId);
        assertThat(row(db, tasks.get("dave"))).containsEntry("state", "CANCELED");
        assertThat(addSigner("erin", id, "frank").json().get("code").asString()).isEqualTo("COUNTERSIGN_DECIDED");
        assertProjectionEqualsRebuild(api, db);
    }

    /**
     * Issue 38: after a transfer the person who holds the task is the signer, for the check and the engine command
     * alike: removing them takes that task off (the original signer leaves the signer list), removing the original
     * signer is a 409, and neither is ever a 500.
     */
    @Test
    void aTransferredSignerTaskIsRemovedAsItsHoldersNotItsOriginalSigners() {
        long id = createCountersign("\"ALL\"", null);
        String processInstanceId = submit(api, id);
        String bobs = signerTasks(processInstanceId).get("bob");
        Api.Response transferred = api.post("bob", "/api/tasks/" + bobs + "/transfer", "{\"userId\":\"frank\"}", ApiFlows.key());
        assertThat(transferred.status()).as(transferred.toString()).isEqualTo(200);

        Api.Response originalSigner = removeSigner("erin", id, "bob");
        assertThat(originalSigner.status()).as(originalSigner.toString()).isEqualTo(409);
        assertThat(originalSigner.json().get("code").asString()).isEqualTo("NOT_AN_OUTSTANDING_SIGNER");
        Api.Response holder = removeSigner("erin", id, "frank");
        assertThat(holder.status()).as(holder.toString()).isEqualTo(200);

        assertThat(signerTasks(processInstanceId)).containsOnlyKeys("carol", "dave");
        assertThat(loopVariable(processInstanceId, "nrOfInstances")).isEqualTo("2");
        assertThat(row(db, bobs)).containsEntry("state", "CANCELED").containsEntry("assignee", "frank");
        assertThat(db.business().queryForMap("select from_user, to_user from task_handover where task_id = ? and kind = 'REMOVE_SIGNER'",
                bobs)).containsEntry("from_user", "frank").containsEntry("to_user", null);
        assertThat(complete(api, "carol", signerTasks(processInstanceId).get("carol"), "APPROVE").status()).isEqualTo(200);
        assertThat(complete(api, "dave", signerTasks(processInstanceId).get("dave"), "APPROVE").status()).isEqualTo(200);
        assertThat(status(id)).as("ALL over the two signers left").isEqualTo("APPROVED");
        assertNoExecutionsLeft(processInstanceId);
        assertProjectionEqualsRebuild(api, db);
    }

    @Test
    void aFailedAddSignerLeavesEngineRecordsAndProjectionUntouched() {
        long id = createCountersign("\"ALL\"", null);
        String processInstanceId = submit(api, id);
        List<Map<String, Object>> projection = dev.lockstep.approval.todo.ProjectionAssertions.allRows(db);
        faults.failAfter("approvalProcess", "addSigner");

        assertThat(addSigner("bob", id, "frank").status()).isEqualTo(500);

        assertThat(signerTasks(processInstanceId)).containsOnlyKeys("bob", "carol", "dave");
        assertThat(loopVariable(processInstanceId, "nrOfInstances")).isEqualTo("3");
        assertThat(dev.lockstep.approval.todo.ProjectionAssertions.allRows(db)).isEqualTo(projection);
        assertThat(db.business().queryForObject("select count(*) from task_handover where application_id = ?", Integer.class, id)).isZero();
        assertThat(db.preparedTransactions()).isEmpty();
    }

    @Test
    void twoVetoesAtOnceGiveOneDecisionAndOne409() throws Exception {
        long id = createCountersign("\"ONE_VETO\"", null);
        String processInstanceId = submit(api, id);
        Map<String, String> tasks = signerTasks(processInstanceId);

        List<Api.Response> responses = ApiFlows.race(() -> complete(api, "bob", tasks.get("bob"), "REJECT"),
                () -> complete(api, "carol", tasks.get("carol"), "REJECT"));

        assertThat(responses).extracting(Api.Response::status).containsExactlyInAnyOrder(200, 409);
        assertThat(status(id)).isEqualTo("REJECTED");
        assertThat(db.business().queryForObject("select count(*) from approval_record where application_id = ?", Integer.class, id))
                .isEqualTo(1);
        assertNoExecutionsLeft(processInstanceId);
        assertThat(db.preparedTransactions()).isEmpty();
    }

    @Test
    void aCountersignNeedsARatioExactlyForTheRatioPolicy() {
        Api.Response missing = api.post("alice", "/api/applications", body("\"RATIO\"", null));
        assertThat(missing.status()).isEqualTo(400);
        assertThat(missing.json().get("code").asString()).isEqualTo("INVALID_COUNTERSIGN");
        Api.Response extra = api.post("alice", "/api/applications", body("\"ALL\"", "0.50"));
        assertThat(extra.json().get("code").asString()).isEqualTo("INVALID_COUNTERSIGN");
    }

    private Api.Response addSigner(String user, long id, String signer) {
        return api.post(user, "/api/applications/" + id + "/countersign/signers", "{\"userId\":\"" + signer + "\"}", ApiFlows.key());
    }

    private Api.Response removeSigner(String user, long id, String signer) {
        return api.post(user, "/api/applications/" + id + "/countersign/signers/remove", "{\"userId\":\"" + signer + "\"}",
                ApiFlows.key());
    }

    private long createCountersign(String policy, String ratio) {
        Api.Response created = api.post("alice", "/api/applications", body(policy, ratio));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        return created.json().get("id").asLong();
    }

    private static String body(String policy, String ratio) {
        return """
                {"title": "Countersigned", "assetId": 7, "amount": 50000, "riskLevel": "HIGH", "sensitive": false,
                 "countersign": {"signers": ["bob", "carol", "dave"], "policy": %s, "ratio": %s}}
                """.formatted(policy, ratio);
    }

    /** Signer → open task id. */
    private Map<String, String> signerTasks(String processInstanceId) {
        List<Map<String, Object>> rows = db.workflow().queryForList(
                "select assignee_, id_ from act_ru_task where proc_inst_id_ = ? and task_def_key_ = 'countersign'", processInstanceId);
        return rows.stream().collect(java.util.stream.Collectors.toMap(r -> (String) r.get("assignee_"), r -> (String) r.get("id_")));
    }

    private String loopVariable(String processInstanceId, String name) {
        return db.workflow().queryForObject("select coalesce(text_, long_::text) from act_ru_variable where proc_inst_id_ = ? and name_ = ?",
                String.class, processInstanceId, name);
    }

    private String status(long id) {
        return db.business().queryForObject("select approval_status from application where id = ?", String.class, id);
    }

    private void assertNoExecutionsLeft(String processInstanceId) {
        assertThat(db.workflow().queryForObject("select count(*) from act_ru_execution where proc_inst_id_ = ?", Integer.class,
                processInstanceId)).isZero();
        assertThat(db.workflow().queryForObject("select count(*) from act_ru_task where proc_inst_id_ = ?", Integer.class,
                processInstanceId)).isZero();
    }
}
