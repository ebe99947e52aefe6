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

    /**
     * Issue 29, item 4: a signer cannot take their co-signers off and so decide a countersign meant for several alone.
     * Only an administrator removes signers; the refusal changes nothing in either database.
     */
    @Test
    void aSignerCannotRemoveTheirCoSigners() {
        long id = createCountersign("\"ALL\"", null);
        String processInstanceId = submit(api, id);
        Map<String, String> tasks = signerTasks(processInstanceId);

        Api.Response carol = removeSigner("bob", id, "carol");
        Api.Response dave = removeSigner("bob", id, "dave");
        Api.Response notASigner = removeSigner("frank", id, "dave");

        assertThat(carol.status()).as(carol.toString()).isEqualTo(403);
        assertThat(carol.json().get("code").asString()).isEqualTo("CANNOT_REMOVE_CO_SIGNER");
        assertThat(dave.json().get("code").asString()).isEqualTo("CANNOT_REMOVE_CO_SIGNER");
        assertThat(notASigner.status()).as(notASigner.toString()).isEqualTo(403);
        assertThat(notASigner.json().get("code").asString()).isEqualTo("ONLY_ADMIN_REMOVES_SIGNERS");
        assertThat(signerTasks(processInstanceId)).isEqualTo(tasks);
        assertThat(loopVariable(processInstanceId, "nrOfInstances")).isEqualTo("3");
        assertThat(signerChanges(id)).isEmpty();

        assertThat(complete(api, "bob", tasks.get("bob"), "APPROVE").status()).isEqualTo(200);
        assertThat(status(id)).as("bob alone decides nothing under ALL").isEqualTo("APPROVING");
        assertThat(signerTasks(processInstanceId)).containsOnlyKeys("carol", "dave");
    }

    /**
     * Issue 29, item 4: taking off the last outstanding signer would decide the step without anybody deciding; it is
     * refused, and the application is approved only once that signer decided.
     */
    @Test
    void anAdminCannotRemoveTheLastOutstandingSigner() {
        long id = createCountersign("\"ONE_VETO\"", null);
        String processInstanceId = submit(api, id);
        Map<String, String> tasks = signerTasks(processInstanceId);
        assertThat(addSigner("erin", id, "frank").status()).isEqualTo(200);
        String frank = signerTasks(processInstanceId).get("frank");

        Api.Response removed = removeSigner("erin", id, "carol");
        assertThat(removed.status()).as(removed.toString()).isEqualTo(200);
        assertThat(loopVariable(processInstanceId, "nrOfInstances")).isEqualTo("3");
        assertThat(loopVariable(processInstanceId, "nrOfActiveInstances")).isEqualTo("3");
        assertThat(row(db, tasks.get("carol"))).containsEntry("state", "CANCELED").containsEntry("end_reason", "Signer carol removed by erin");
        assertThat(removeSigner("erin", id, "carol").json().get("code").asString()).isEqualTo("NOT_AN_OUTSTANDING_SIGNER");
        assertThat(complete(api, "bob", tasks.get("bob"), "APPROVE").status()).isEqualTo(200);
        assertThat(complete(api, "frank", frank, "APPROVE").status()).isEqualTo(200);

        Api.Response last = removeSigner("erin", id, "dave");

        assertThat(last.status()).as(last.toString()).isEqualTo(409);
        assertThat(last.json().get("code").asString()).isEqualTo("LAST_OUTSTANDING_SIGNER");
        assertThat(status(id)).as("nobody decided for dave").isEqualTo("APPROVING");
        assertThat(row(db, tasks.get("dave"))).containsEntry("state", "OPEN");
        assertThat(loopVariable(processInstanceId, "nrOfActiveInstances")).isEqualTo("1");
        assertThat(signerChanges(id)).extracting(change -> change.get("kind")).containsExactly("SIGNER_ADDED", "SIGNER_REMOVED");

        assertThat(complete(api, "dave", tasks.get("dave"), "APPROVE").status()).isEqualTo(200);
        assertThat(status(id)).isEqualTo("APPROVED");
        assertThat(db.business().queryForList("select approver_id from approval_record where application_id = ? and decision = 'APPROVE'",
                String.class, id)).containsExactlyInAnyOrder("bob", "frank", "dave");
        assertNoExecutionsLeft(processInstanceId);
        assertProjectionEqualsRebuild(api, db);
    }

    /**
     * Issue 29, item 4: a removal that would make the policy's completion condition hold (here RATIO 0.60: two
     * approvals of four are not enough, of three they are) is refused even though a signer is still outstanding.
     */
    @Test
    void aRemovalThatWouldSatisfyThePolicyIsRefused() {
        long id = createCountersign("\"RATIO\"", "0.60");
        String processInstanceId = submit(api, id);
        Map<String, String> tasks = signerTasks(processInstanceId);
        assertThat(addSigner("erin", id, "frank").status()).isEqualTo(200);
        assertThat(complete(api, "bob", tasks.get("bob"), "APPROVE").status()).isEqualTo(200);
        assertThat(complete(api, "dave", tasks.get("dave"), "APPROVE").status()).isEqualTo(200);
        assertThat(status(id)).as("2 of 4 do not reach 60%").isEqualTo("APPROVING");

        Api.Response decides = removeSigner("erin", id, "carol");

        assertThat(decides.status()).as(decides.toString()).isEqualTo(409);
        assertThat(decides.json().get("code").asString()).isEqualTo("REMOVAL_WOULD_DECIDE");
        assertThat(status(id)).isEqualTo("APPROVING");
        assertThat(signerTasks(processInstanceId)).containsOnlyKeys("carol", "frank");
        assertThat(loopVariable(processInstanceId, "nrOfInstances")).isEqualTo("4");
        assertThat(signerChanges(id)).extracting(change -> change.get("kind")).containsExactly("SIGNER_ADDED");
        assertThat(complete(api, "carol", tasks.get("carol"), "APPROVE").status()).isEqualTo(200);
        assertThat(status(id)).as("3 of 4 reach 60%").isEqualTo("APPROVED");
    }

    /**
     * Issue 29, item 4: the policy's minimum number of distinct deciders, as declared at creation (ALL: all three named
     * signers), holds against removals: a signer can be replaced (added, then removed) but not dropped. Each change is
     * on the application's trail, in the same transaction as the engine change.
     */
    @Test
    void removalsKeepThePolicysMinimumOfDecidersAndAreOnTheTrail() {
        long id = createCountersign("\"ALL\"", null);
        String processInstanceId = submit(api, id);
        Map<String, String> tasks = signerTasks(processInstanceId);

        Api.Response dropped = removeSigner("erin", id, "carol");
        assertThat(dropped.status()).as(dropped.toString()).isEqualTo(409);
        assertThat(dropped.json().get("code").asString()).isEqualTo("BELOW_MINIMUM_DECIDERS");
        assertThat(signerTasks(processInstanceId)).containsOnlyKeys("bob", "carol", "dave");
        assertThat(signerChanges(id)).isEmpty();

        Api.Response added = api.post("erin", "/api/applications/" + id + "/countersign/signers",
                "{\"userId\":\"frank\",\"comment\":\"carol is on leave\"}", ApiFlows.key());
        assertThat(added.status()).as(added.toString()).isEqualTo(200);
        String removalKey = ApiFlows.key();
        Api.Response replaced = api.post("erin", "/api/applications/" + id + "/countersign/signers/remove",
                "{\"userId\":\"carol\",\"comment\":\"on leave\"}", removalKey);
        assertThat(replaced.status()).as(replaced.toString()).isEqualTo(200);

        List<Map<String, Object>> trail = signerChanges(id);
        assertThat(trail).hasSize(2);
        assertThat(trail.get(0)).containsEntry("kind", "SIGNER_ADDED").containsEntry("signer_id", "frank")
                .containsEntry("actor_id", "erin").containsEntry("open_task_ids", signerTasks(processInstanceId).get("frank"))
                .containsEntry("process_instance_id", processInstanceId);
        assertThat(trail.get(1)).containsEntry("kind", "SIGNER_REMOVED").containsEntry("signer_id", "carol")
                .containsEntry("actor_id", "erin").containsEntry("open_task_ids", tasks.get("carol"))
                .containsEntry("reason", "Signer carol removed by erin: on leave").containsEntry("request_id", removalKey);
        assertThat(db.business().queryForList("select kind, from_user, acted_by from task_handover where task_id = ?", tasks.get("carol")))
                .containsExactly(Map.of("kind", "REMOVE_SIGNER", "from_user", "carol", "acted_by", "erin"));
        assertThat(removeSigner("erin", id, "dave").json().get("code").asString()).isEqualTo("BELOW_MINIMUM_DECIDERS");

        signerTasks(processInstanceId).forEach((signer, task) -> assertThat(complete(api, signer, task, "APPROVE").status()).isEqualTo(200));
        assertThat(status(id)).isEqualTo("APPROVED");
        assertThat(db.business().queryForList("select approver_id from approval_record where application_id = ?", String.class, id))
                .containsExactlyInAnyOrder("bob", "dave", "frank");
        assertThat(api.get("erin", "/api/applications/" + id).json().get("events").toString()).contains("SIGNER_REMOVED", "carol");
        assertNoExecutionsLeft(processInstanceId);
        assertProjectionEqualsRebuild(api, db);
    }

    /**
     * Issue 29, item 4: two removals at once are serialized by the application's row lock, and the second reads the
     * engine state the first committed: only one of them fits the policy's minimum (three deciders for ONE_VETO of three).
     */
    @Test
    void twoRemovalsAtOnceKeepTheMinimum() throws Exception {
        long id = createCountersign("\"ONE_VETO\"", null);
        String processInstanceId = submit(api, id);
        assertThat(addSigner("erin", id, "frank").status()).isEqualTo(200);

        List<Api.Response> responses = ApiFlows.race(() -> removeSigner("erin", id, "carol"), () -> removeSigner("erin", id, "dave"));

        assertThat(responses).extracting(Api.Response::status).containsExactlyInAnyOrder(200, 409);
        assertThat(responses).filteredOn(response -> response.status() == 409)
                .allSatisfy(response -> assertThat(response.json().get("code").asString()).isEqualTo("BELOW_MINIMUM_DECIDERS"));
        assertThat(signerTasks(processInstanceId)).hasSize(3);
        assertThat(loopVariable(processInstanceId, "nrOfInstances")).isEqualTo("3");
        assertThat(signerChanges(id)).extracting(change -> change.get("kind")).containsExactly("SIGNER_ADDED", "SIGNER_REMOVED");
        assertThat(status(id)).isEqualTo("APPROVING");
        assertThat(db.preparedTransactions()).isEmpty();
    }

    /**
     * Issue 38: after a transfer the person who holds the task is the signer, for the check and the engine command
     * alike: removing them takes that task off (the original signer leaves the signer list), removing the original
     * signer is a 409, and neither is ever a 500.
     */
    @Test
    void aTransferredSignerTaskIsRemovedAsItsHoldersNotItsOriginalSigners() {
        // RATIO 0.50 of three needs two deciders: one of the three may go
        long id = createCountersign("\"RATIO\"", "0.50");
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
        assertThat(status(id)).as("50% of the two signers left").isEqualTo("APPROVED");
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

    /** Issue 36, item 4: the two votes that together decide an ALL countersign, sent at the same moment. */
    @Test
    void twoLastApprovalsAtOnceGiveOneOutcomeAndOneCompletion() throws Exception {
        long id = createCountersign("\"ALL\"", null);
        String processInstanceId = submit(api, id);
        Map<String, String> tasks = signerTasks(processInstanceId);
        assertThat(complete(api, "bob", tasks.get("bob"), "APPROVE").status()).isEqualTo(200);
        String outboxOfThisId = "select count(*) from outbox_event where aggregate_type = 'APPLICATION' and aggregate_id = ?";
        int eventsBefore = db.business().queryForObject(outboxOfThisId, Integer.class, Long.toString(id));

        List<Api.Response> responses = ApiFlows.race(() -> complete(api, "carol", tasks.get("carol"), "APPROVE"),
                () -> complete(api, "dave", tasks.get("dave"), "APPROVE"));

        assertThat(responses).as("both votes count: ALL needs each of them").extracting(Api.Response::status).containsExactly(200, 200);
        assertThat(status(id)).isEqualTo("APPROVED");
        assertThat(db.business().queryForList("select approver_id from approval_record where application_id = ?", String.class, id))
                .containsExactlyInAnyOrder("bob", "carol", "dave");
        assertThat(db.business().queryForObject("select binding_status from business_process_binding where process_instance_id = ?",
                String.class, processInstanceId)).isEqualTo("APPROVED");
        assertThat(db.workflow().queryForObject("select count(*) from act_hi_actinst where proc_inst_id_ = ? and act_type_ = 'endEvent'",
                Integer.class, processInstanceId)).as("the run ended once").isEqualTo(1);
        assertThat(db.business().queryForObject(outboxOfThisId, Integer.class, Long.toString(id)))
                .as("one publication event for the one approval").isEqualTo(eventsBefore + 1);
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

    /** The application's trail entries of signer changes, oldest first. */
    private List<Map<String, Object>> signerChanges(long id) {
        return db.business().queryForList("""
                select kind, signer_id, actor_id, reason, open_task_ids, process_instance_id, request_id from application_event
                 where application_id = ? and kind in ('SIGNER_ADDED', 'SIGNER_REMOVED') order by id""", id);
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
