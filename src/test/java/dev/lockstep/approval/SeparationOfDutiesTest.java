package dev.lockstep.approval;

import static dev.lockstep.approval.ApiFlows.complete;
import static dev.lockstep.approval.ApiFlows.createDraft;
import static dev.lockstep.approval.ApiFlows.key;
import static dev.lockstep.approval.ApiFlows.openTaskId;
import static dev.lockstep.approval.ApiFlows.submit;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.approval.todo.TaskProjectionRefresh;
import dev.lockstep.support.Api;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.TestDatabases;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import org.activiti.engine.TaskService;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Separation of duties over real HTTP: the applicant never decides or receives a task of her own
 * application, one person decides at most one step of a MEDIUM/HIGH application, the signers of a
 * countersign are distinct people, and an admin never decides by being admin. Every refusal is
 * checked in the databases: nothing was written.
 */
@LockstepIntegrationTest
class SeparationOfDutiesTest {

    @Autowired
    Api api;
    @Autowired
    TestDatabases db;
    @Autowired
    TaskService engineTasks;
    @Autowired
    TaskProjectionRefresh projectedTasks;

    @Test
    void aCountersignNamingTheApplicantAsSignerIsRefusedAtCreation() {
        String title = "Self-signed " + UUID.randomUUID();

        Api.Response refused = api.post("alice", "/api/applications", """
                {"title": "%s", "assetId": 7, "amount": 100, "riskLevel": "LOW", "sensitive": false,
                 "countersign": {"signers": ["alice"], "policy": "ALL"}}""".formatted(title));

        assertThat(refused.status()).as(refused.toString()).isEqualTo(422);
        assertThat(refused.json().get("code").asString()).isEqualTo("SIGNER_IS_APPLICANT");
        assertThat(db.business().queryForObject("select count(*) from application where title = ?", Integer.class, title)).isZero();
    }

    @Test
    void aDraftStoredBeforeTheRuleWithTheApplicantAsSignerIsNotSubmitted() {
        long id = createCountersign("LOW", "[\"bob\"]", "ALL");
        db.business().update("update application set countersign_signers = 'bob,alice' where id = ?", id);

        Api.Response refused = api.post("alice", "/api/applications/" + id + "/submit", null, key());

        assertThat(refused.status()).as(refused.toString()).isEqualTo(422);
        assertThat(refused.json().get("code").asString()).isEqualTo("SIGNER_IS_APPLICANT");
        assertThat(db.business().queryForMap("select approval_status, process_instance_id from application where id = ?", id))
                .containsEntry("approval_status", "DRAFT").containsEntry("process_instance_id", null);
        assertThat(db.engineRowsForBusinessKey(id)).isZero();
    }

    @Test
    void theApplicantCannotBeHandedATaskOfHerOwnApplicationByTransferDelegationOrAdmin() {
        long id = createDraft(api, "LOW", false);
        String task = openTaskId(db, submit(api, id), "managerApproval");

        Api.Response transfer = api.post("bob", "/api/tasks/" + task + "/transfer", "{\"userId\":\"alice\"}", key());
        Api.Response delegate = api.post("bob", "/api/tasks/" + task + "/delegate", "{\"userId\":\"alice\"}", key());
        Api.Response byAdmin = api.post("erin", "/api/tasks/" + task + "/transfer", "{\"userId\":\"alice\"}", key());

        for (Api.Response refused : List.of(transfer, delegate, byAdmin)) {
            assertThat(refused.status()).as(refused.toString()).isEqualTo(422);
            assertThat(refused.json().get("code").asString()).isEqualTo("HANDOVER_TO_APPLICANT");
        }
        assertThat(engineTask(task)).containsEntry("assignee_", null).containsEntry("owner_", null);
        assertThat(handovers(id)).isZero();
        assertThat(db.business().queryForObject("select assignee from task_projection where task_id = ?", String.class, task))
                .isNull();
    }

    @Test
    void theApplicantIsNeverAddedAsASigner() {
        long id = createCountersign("LOW", "[\"bob\", \"carol\"]", "ALL");
        String processInstanceId = submit(api, id);

        Api.Response refused = api.post("bob", "/api/applications/" + id + "/countersign/signers", "{\"userId\":\"alice\"}", key());

        assertThat(refused.status()).as(refused.toString()).isEqualTo(422);
        assertThat(refused.json().get("code").asString()).isEqualTo("SIGNER_IS_APPLICANT");
        assertThat(signerTasks(processInstanceId)).containsOnlyKeys("bob", "carol");
        assertThat(handovers(id)).isZero();
    }

    /**
     * A task of her own application can reach the applicant by ways the service does not control
     * (an approver group she is also in, a run started before this rule): every action on it is
     * refused all the same, and her todo list does not offer it.
     */
    @Test
    void theApplicantHoldingATaskOfHerOwnApplicationCannotClaimDecideReturnOrHandItOn() {
        long id = createDraft(api, "HIGH", false);
        String processInstanceId = submit(api, id);
        String manager = openTaskId(db, processInstanceId, "managerApproval");
        assertThat(complete(api, "bob", manager, "APPROVE").status()).isEqualTo(200);
        String legal = openTaskId(db, processInstanceId, "legalReview");
        // assigned through the engine's API, as a run from before this rule (or a group she is in) could leave it, and
        // projected so (an assignment outside the service's task commands fires no projection write of its own)
        engineTasks.setAssignee(legal, "alice");
        projectedTasks.refreshTask(Long.toString(id), legal);
        assertThat(db.business().queryForObject("select assignee from task_projection where task_id = ?", String.class, legal))
                .isEqualTo("alice");

        List<Api.Response> refusals = List.of(
                api.post("alice", "/api/tasks/" + legal + "/claim", null, key()),
                complete(api, "alice", legal, "APPROVE"),
                api.get("alice", "/api/tasks/" + legal + "/return-targets"),
                api.post("alice", "/api/tasks/" + legal + "/return",
                        "{\"targetActivityId\":\"managerApproval\",\"mode\":\"RERUN\",\"reason\":\"again\"}", key()),
                api.post("alice", "/api/tasks/" + legal + "/transfer", "{\"userId\":\"carol\"}", key()),
                api.post("alice", "/api/tasks/" + legal + "/delegate", "{\"userId\":\"carol\"}", key()));

        for (Api.Response refused : refusals) {
            assertThat(refused.status()).as(refused.toString()).isEqualTo(403);
            assertThat(refused.json().get("code").asString()).isEqualTo("APPLICANT_CANNOT_DECIDE");
        }
        assertThat(db.business().queryForObject("select count(*) from approval_record where application_id = ?", Integer.class, id))
                .isEqualTo(1);
        assertThat(engineTask(legal)).containsEntry("assignee_", "alice");
        assertThat(handovers(id)).isZero();
        assertThat(db.business().queryForObject("select approval_status from application where id = ?", String.class, id))
                .isEqualTo("APPROVING");
        assertThat(todoIds("alice")).doesNotContain(legal);
    }

    @Test
    void onTheDefaultPolicyWhoDecidedOneStepOfAHighRiskApplicationCannotReceiveAnother() {
        long id = createDraft(api, "HIGH", false);
        String processInstanceId = submit(api, id);
        assertThat(complete(api, "bob", openTaskId(db, processInstanceId, "managerApproval"), "APPROVE").status()).isEqualTo(200);
        String legal = openTaskId(db, processInstanceId, "legalReview");

        Api.Response byHolder = api.post("carol", "/api/tasks/" + legal + "/transfer", "{\"userId\":\"bob\"}", key());
        Api.Response byAdmin = api.post("erin", "/api/tasks/" + legal + "/transfer", "{\"userId\":\"bob\"}", key());

        for (Api.Response refused : List.of(byHolder, byAdmin)) {
            assertThat(refused.status()).as(refused.toString()).isEqualTo(422);
            assertThat(refused.json().get("code").asString()).isEqualTo("DECIDED_ANOTHER_STEP");
        }
        assertThat(engineTask(legal)).containsEntry("assignee_", null);
        assertThat(handovers(id)).isZero();
    }

    /** Handed a task before deciding another step, the second decision is refused from the stored records. */
    @Test
    void onTheDefaultPolicyOnePersonDecidesAtMostOneStepOfAnApplication() {
        long id = createDraft(api, "MEDIUM", true);
        String processInstanceId = submit(api, id);
        assertThat(complete(api, "bob", openTaskId(db, processInstanceId, "managerApproval"), "APPROVE").status()).isEqualTo(200);
        String legal = openTaskId(db, processInstanceId, "legalReview");
        String finance = openTaskId(db, processInstanceId, "financeReview");
        assertThat(api.post("carol", "/api/tasks/" + legal + "/transfer", "{\"userId\":\"dave\"}", key()).status()).isEqualTo(200);
        assertThat(complete(api, "dave", finance, "APPROVE").status()).isEqualTo(200);

        Api.Response second = complete(api, "dave", legal, "APPROVE");

        assertThat(second.status()).as(second.toString()).isEqualTo(403);
        assertThat(second.json().get("code").asString()).isEqualTo("DECIDED_ANOTHER_STEP");
        assertThat(db.business().queryForList("select task_definition_key from approval_record where application_id = ? order by id",
                String.class, id)).containsExactly("managerApproval", "financeReview");
        assertThat(engineTask(legal)).containsEntry("assignee_", "dave");
        // the way out: the task goes to someone who has not decided here
        assertThat(api.post("dave", "/api/tasks/" + legal + "/transfer", "{\"userId\":\"carol\"}", key()).status()).isEqualTo(200);
        assertThat(complete(api, "carol", legal, "APPROVE").status()).isEqualTo(200);
    }

    /** Under the application row lock the second decision reads the first one's record: never both. */
    @Test
    void twoStepsDecidedAtOnceByOnePersonGiveOneDecisionAndOneRefusal() throws Exception {
        long id = createDraft(api, "HIGH", false);
        String processInstanceId = submit(api, id);
        assertThat(complete(api, "bob", openTaskId(db, processInstanceId, "managerApproval"), "APPROVE").status()).isEqualTo(200);
        String legal = openTaskId(db, processInstanceId, "legalReview");
        String finance = openTaskId(db, processInstanceId, "financeReview");
        assertThat(api.post("carol", "/api/tasks/" + legal + "/transfer", "{\"userId\":\"dave\"}", key()).status()).isEqualTo(200);

        List<Api.Response> responses = ApiFlows.race(() -> complete(api, "dave", legal, "APPROVE"),
                () -> complete(api, "dave", finance, "APPROVE"));

        assertThat(responses).extracting(Api.Response::status).containsExactlyInAnyOrder(200, 403);
        assertThat(responses).filteredOn(response -> response.status() == 403)
                .allSatisfy(refused -> assertThat(refused.json().get("code").asString()).isEqualTo("DECIDED_ANOTHER_STEP"));
        assertThat(db.business().queryForObject("select count(*) from approval_record where application_id = ? and approver_id = 'dave'",
                Integer.class, id)).isEqualTo(1);
    }

    @Test
    void theOneStepPolicyIsOffForLowRiskByDefault() {
        long id = createDraft(api, "LOW", false);
        String processInstanceId = submit(api, id);
        assertThat(complete(api, "bob", openTaskId(db, processInstanceId, "managerApproval"), "APPROVE").status()).isEqualTo(200);
        String director = openTaskId(db, processInstanceId, "finalApproval");
        assertThat(api.post("frank", "/api/tasks/" + director + "/transfer", "{\"userId\":\"bob\"}", key()).status()).isEqualTo(200);

        Api.Response decided = complete(api, "bob", director, "APPROVE");

        assertThat(decided.status()).as(decided.toString()).isEqualTo(200);
        assertThat(db.business().queryForObject("select approval_status from application where id = ?", String.class, id))
                .isEqualTo("APPROVED");
    }

    @Test
    void aSignerNeverHoldsTwoVotesOfOneCountersign() {
        long id = createCountersign("LOW", "[\"bob\", \"carol\", \"dave\"]", "ALL");
        String processInstanceId = submit(api, id);
        Map<String, String> tasks = signerTasks(processInstanceId);
        assertThat(complete(api, "bob", tasks.get("bob"), "APPROVE").status()).isEqualTo(200);

        Api.Response toOneWhoVoted = api.post("carol", "/api/tasks/" + tasks.get("carol") + "/transfer", "{\"userId\":\"bob\"}", key());
        Api.Response toOneWhoHoldsAVote = api.post("erin", "/api/tasks/" + tasks.get("dave") + "/transfer",
                "{\"userId\":\"carol\"}", key());
        Api.Response delegatedToAVoter = api.post("carol", "/api/tasks/" + tasks.get("carol") + "/delegate",
                "{\"userId\":\"dave\"}", key());

        for (Api.Response refused : List.of(toOneWhoVoted, toOneWhoHoldsAVote, delegatedToAVoter)) {
            assertThat(refused.status()).as(refused.toString()).isEqualTo(422);
            assertThat(refused.json().get("code").asString()).isEqualTo("ALREADY_A_SIGNER");
        }
        assertThat(signerTasks(processInstanceId)).containsOnlyKeys("carol", "dave");
        assertThat(handovers(id)).isZero();
    }

    @Test
    void onAHighRiskCountersignTheManagerWhoReviewedCannotAlsoSign() {
        Api.Response created = api.post("alice", "/api/applications", """
                {"title": "Reviewed and countersigned", "assetId": 7, "amount": 500, "riskLevel": "HIGH", "sensitive": false,
                 "countersign": {"signers": ["bob", "carol"], "policy": "ALL", "managerReview": true}}""");
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        long id = created.json().get("id").asLong();
        String processInstanceId = submit(api, id);
        assertThat(complete(api, "bob", openTaskId(db, processInstanceId, "managerApproval"), "APPROVE").status()).isEqualTo(200);
        Map<String, String> tasks = signerTasks(processInstanceId);

        Api.Response vote = complete(api, "bob", tasks.get("bob"), "APPROVE");

        assertThat(vote.status()).as(vote.toString()).isEqualTo(403);
        assertThat(vote.json().get("code").asString()).isEqualTo("DECIDED_ANOTHER_STEP");
        assertThat(db.business().queryForList("select task_definition_key from approval_record where application_id = ?",
                String.class, id)).containsExactly("managerApproval");
        assertThat(engineTask(tasks.get("bob"))).containsEntry("assignee_", "bob");
        // an admin replaces him (ALL keeps its two deciders: the replacement first, then the removal); frank and carol decide
        assertThat(api.post("erin", "/api/applications/" + id + "/countersign/signers", "{\"userId\":\"frank\"}", key())
                .status()).isEqualTo(200);
        assertThat(api.post("erin", "/api/applications/" + id + "/countersign/signers/remove", "{\"userId\":\"bob\"}", key())
                .status()).isEqualTo(200);
        assertThat(complete(api, "carol", tasks.get("carol"), "APPROVE").status()).isEqualTo(200);
        assertThat(db.business().queryForObject("select approval_status from application where id = ?", String.class, id))
                .as("frank has not decided yet").isEqualTo("APPROVING");
        assertThat(complete(api, "frank", signerTasks(processInstanceId).get("frank"), "APPROVE").status()).isEqualTo(200);
        assertThat(db.business().queryForObject("select approval_status from application where id = ?", String.class, id))
                .isEqualTo("APPROVED");
    }

    @Test
    void anAdminDecidesNothingByBeingAdmin() {
        long id = createDraft(api, "LOW", false);
        String task = openTaskId(db, submit(api, id), "managerApproval");

        Api.Response completes = complete(api, "erin", task, "APPROVE");
        Api.Response claims = api.post("erin", "/api/tasks/" + task + "/claim", null, key());
        Api.Response takesIt = api.post("erin", "/api/tasks/" + task + "/transfer", "{\"userId\":\"erin\"}", key());

        assertThat(completes.status()).isEqualTo(403);
        assertThat(completes.json().get("code").asString()).isEqualTo("NOT_A_CANDIDATE");
        assertThat(claims.status()).isEqualTo(403);
        assertThat(takesIt.status()).isEqualTo(400);
        assertThat(takesIt.json().get("code").asString()).isEqualTo("HANDOVER_TO_SELF");
        assertThat(engineTask(task)).containsEntry("assignee_", null);
        assertThat(db.business().queryForObject("select count(*) from approval_record where application_id = ?", Integer.class, id))
                .isZero();
    }

    private long createCountersign(String riskLevel, String signers, String policy) {
        Api.Response created = api.post("alice", "/api/applications", """
                {"title": "Countersigned", "assetId": 7, "amount": 500, "riskLevel": "%s", "sensitive": false,
                 "countersign": {"signers": %s, "policy": "%s"}}""".formatted(riskLevel, signers, policy));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        return created.json().get("id").asLong();
    }

    private Map<String, Object> engineTask(String taskId) {
        return db.workflow().queryForMap("select assignee_, owner_ from act_ru_task where id_ = ?", taskId);
    }

    private int handovers(long applicationId) {
        return db.business().queryForObject("select count(*) from task_handover where application_id = ?", Integer.class,
                applicationId);
    }

    private Map<String, String> signerTasks(String processInstanceId) {
        return db.workflow().queryForList("select assignee_, id_ from act_ru_task where proc_inst_id_ = ? and task_def_key_ = 'countersign'",
                processInstanceId).stream().collect(Collectors.toMap(r -> (String) r.get("assignee_"), r -> (String) r.get("id_")));
    }

    private List<String> todoIds(String user) {
        Api.Response todo = api.get(user, "/api/tasks?size=100");
        assertThat(todo.status()).as(todo.toString()).isEqualTo(200);
        return todo.json().get("items").valueStream().map(item -> item.get("id").asString()).toList();
    }
}
