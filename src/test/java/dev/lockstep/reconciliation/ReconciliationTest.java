package dev.lockstep.reconciliation;

import static org.assertj.core.api.Assertions.assertThat;

import com.atomikos.icatch.jta.UserTransactionManager;
import dev.lockstep.approval.ApiFlows;
import dev.lockstep.approval.todo.ProjectionAssertions;
import dev.lockstep.support.Api;
import dev.lockstep.support.InjectedFaults;
import dev.lockstep.support.UseCaseIntegrationTest;
import dev.lockstep.transactions.workflow.ActionFence;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.activiti.engine.RuntimeService;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/**
 * Each rule's difference made the way it happens in real life — a business branch rolled back by hand after the
 * coordinator decided commit, a second instance started around the service, a manual UPDATE — then a run through
 * the API: detection, classification, the repair or the incident, the freeze and the four-eyes steps, asserted
 * with plain SQL.
 */
class ReconciliationTest extends UseCaseIntegrationTest {

    @Autowired
    UserTransactionManager transactionManager;
    @Autowired
    RuntimeService runtime;
    @Autowired
    EvidenceReader reader;
    @Autowired
    SafeRepairs repairs;

    @Test
    void theExistingFlowsLeaveNothingToReconcile() {
        long draft = ApiFlows.createDraft(api, "LOW", false);
        long approving = ApiFlows.createDraft(api, "LOW", false);
        ApiFlows.submit(api, approving);
        long parallel = ApiFlows.createDraft(api, "HIGH", true);
        String parallelRun = ApiFlows.submit(api, parallel);
        approve("bob", parallelRun, "managerApproval");
        // one of the two parallel reviews done: one open task, two executions — still running, not ended
        approve("carol", parallelRun, "legalReview");
        long approved = ApiFlows.createDraft(api, "LOW", false);
        String approvedRun = ApiFlows.submit(api, approved);
        approve("bob", approvedRun, "managerApproval");
        approve("frank", approvedRun, "finalApproval");
        long withdrawn = ApiFlows.createDraft(api, "LOW", false);
        ApiFlows.submit(api, withdrawn);
        assertThat(api.post("alice", "/api/applications/" + withdrawn + "/withdraw", "{\"reason\":\"not needed\"}").status())
                .isEqualTo(200);
        List<Long> ids = List.of(draft, approving, parallel, approved, withdrawn);
        ids.forEach(this::ageApplication);

        JsonNode run = runAndWait("FULL");

        assertThat(run.get("state").asString()).isEqualTo("SUCCEEDED");
        for (long id : ids) {
            assertThat(db.business().queryForObject("select count(*) from reconciliation_incident where application_id = ?",
                    Integer.class, id)).as("incidents of consistent application %s", id).isZero();
            assertThat(db.business().queryForObject("select count(*) from reconciliation_repair where application_id = ?",
                    Integer.class, id)).as("repairs of consistent application %s", id).isZero();
        }
    }

    @Test
    void aFinalApprovalWhoseBusinessBranchWasRolledBackByHandIsSettledFromTheProcessOutcome() {
        long id = ApiFlows.createDraft(api, "LOW", false);
        String run = ApiFlows.submit(api, id);
        approve("bob", run, "managerApproval");
        BranchRolledBackByHand dba = BranchRolledBackByHand.onBusiness(db);
        faults.afterCall("applicationRepository", "close", () -> dba.enlistIn(transactionManager));
        ApiFlows.complete(api, "frank", ApiFlows.openTaskId(db, run, "finalApproval"), "APPROVE");
        assertThat(dba.rolledBack()).isNotNull();
        assertThat(db.workflow().queryForObject("select count(*) from act_ru_execution where proc_inst_id_ = ?", Integer.class, run))
                .as("the workflow branch committed: the process has ended").isZero();
        assertThat(status(id)).as("the business branch was rolled back").isEqualTo("APPROVING");
        ageApplication(id);

        runAndWait("INCREMENTAL");

        assertThat(db.business().queryForMap("select approval_status, publish_status from application where id = ?", id))
                .containsEntry("approval_status", "APPROVED").containsEntry("publish_status", "PENDING");
        assertThat(db.business().queryForObject("select binding_status from business_process_binding where process_instance_id = ?",
                String.class, run)).isEqualTo("APPROVED");
        assertThat(db.business().queryForList("select rule_id from reconciliation_repair where application_id = ? and outcome = 'APPLIED'",
                String.class, id)).containsExactly("APPROVING_PROCESS_ENDED");
        assertThat(db.business().queryForObject("select count(*) from task_projection where application_id = ? and state = 'OPEN'",
                Integer.class, id)).as("settling the run re-projected its tasks from the engine: no open task left").isZero();
        assertThat(db.business().queryForObject("select count(*) from recovery_audit where action = 'RECONCILIATION_REPAIR'"
                + " and detail like ?", Integer.class, "application " + id + " rule APPROVING_PROCESS_ENDED%")).isEqualTo(1);
        assertThat(db.business().queryForObject("select count(*) from reconciliation_incident where application_id = ?",
                Integer.class, id)).isZero();
    }

    @Test
    void aDecisionAtTheJoinWhoseWorkflowBranchWasRolledBackByHandIsAnIncidentNotARepair() {
        long id = ApiFlows.createDraft(api, "LOW", true);
        String run = ApiFlows.submit(api, id);
        approve("bob", run, "managerApproval");
        approve("carol", run, "legalReview");
        BranchRolledBackByHand dba = BranchRolledBackByHand.onWorkflow(db);
        faults.afterCall("approvalProcess", "complete", () -> dba.enlistIn(transactionManager));
        Api.Response told = ApiFlows.complete(api, "dave", ApiFlows.openTaskId(db, run, "financeReview"), "APPROVE");
        assertThat(dba.rolledBack()).isNotNull();
        assertThat(told.status()).as("the client hears success: the coordinator took the vanished branch for committed").isEqualTo(200);
        // the split, read with plain SQL: the decision is in the business database only
        assertThat(db.business().queryForObject("select count(*) from approval_record where application_id = ? and task_definition_key"
                + " = 'financeReview'", Integer.class, id)).isEqualTo(1);
        assertThat(db.workflow().queryForList("select task_def_key_ from act_ru_task where proc_inst_id_ = ?", String.class, run))
                .containsExactly("financeReview");
        long counted = db.business().queryForObject("select action_seq from application where id = ?", Long.class, id);
        ageApplication(id);

        runAndWait("INCREMENTAL");

        long incident = openIncident(id, "ACTION_FENCE_DRIFT");
        assertThat(db.business().queryForObject("select difference from reconciliation_incident where id = ?", String.class, incident))
                .contains("counts " + counted + " actions", "holds action " + (counted - 1));
        assertThat(db.business().queryForObject("select count(*) from reconciliation_repair where application_id = ?", Integer.class, id))
                .as("the projection is not rebuilt over a decision one database lacks").isZero();
        assertThat(db.business().queryForObject("select count(*) from task_projection where application_id = ? and state = 'OPEN'"
                + " and task_definition_key = 'finalApproval'", Integer.class, id)).as("the projection still shows the business side").isEqualTo(1);
        Api.Response mismatches = api.get("dba1", "/api/recovery/mismatches");
        assertThat(mismatches.status()).isEqualTo(200);
        assertThat(mismatches.body()).contains("\"applicationId\":" + id, "one database only");
        assertFrozen(ApiFlows.complete(api, "dave", ApiFlows.openTaskId(db, run, "financeReview"), "APPROVE"), incident);
        // the split stays (an incident for people); its projection rows go back to the engine's, since other classes
        // sharing this database compare the whole table with a rebuild
        assertThat(api.post("erin", "/api/admin/task-projection/rebuild", null).status()).isEqualTo(200);
    }

    @Test
    void aSubmissionWhoseBusinessBranchWasRolledBackByHandFreezesTheDraftUntilFourEyesCloseTheIncident() {
        long id = ApiFlows.createDraft(api, "LOW", false);
        BranchRolledBackByHand dba = BranchRolledBackByHand.onBusiness(db);
        faults.afterCall("applicationRepository", "markApproving", () -> dba.enlistIn(transactionManager));
        api.post("alice", "/api/applications/" + id + "/submit", null, ApiFlows.key());
        assertThat(dba.rolledBack()).isNotNull();
        assertThat(status(id)).isEqualTo("DRAFT");
        String stray = db.workflow().queryForObject("select proc_inst_id_ from act_ru_execution where business_key_ = ?",
                String.class, Long.toString(id));
        ageApplication(id);

        runAndWait("INCREMENTAL");

        long incident = openIncident(id, "DRAFT_ACTIVE_INSTANCE");
        assertThat(db.business().queryForObject("select process_instance_id from reconciliation_incident where id = ?", String.class,
                incident)).isEqualTo(stray);
        assertThat(db.business().queryForObject("select evidence from reconciliation_incident where id = ?", String.class, incident))
                .contains(stray).contains("\"approvalStatus\":\"DRAFT\"");
        assertFrozen(api.post("alice", "/api/applications/" + id + "/submit", null, ApiFlows.key()), incident);

        String base = "/api/admin/reconciliation/incidents/" + incident;
        assertThat(api.get("audrey", base).status()).as("the auditor reads").isEqualTo(200);
        assertThat(api.post("audrey", base + "/propose", "{\"fix\":\"MANUAL\"}").status()).as("but does not act").isEqualTo(403);
        assertThat(api.post("dba1", base + "/propose", "{\"fix\":\"SAFE_REPAIR\"}").json().get("code").asString())
                .isEqualTo("NO_SAFE_REPAIR");
        assertThat(api.post("dba1", base + "/propose", "{\"fix\":\"MANUAL\",\"note\":\"delete the stray run\"}").status()).isEqualTo(200);
        Api.Response selfApproved = api.post("dba1", base + "/approve", null);
        assertThat(selfApproved.status()).isEqualTo(403);
        assertThat(selfApproved.json().get("code").asString()).isEqualTo("FOUR_EYES_REQUIRED");
        assertThat(api.post("dba2", base + "/approve", null).status()).isEqualTo(200);
        // the fix itself, by hand through the engine's public API
        runtime.deleteProcessInstance(stray, "reconciliation incident " + incident + ": start whose business write was lost");
        assertThat(api.post("dba1", base + "/execute", "{\"commandUsed\":\"RuntimeService.deleteProcessInstance(" + stray
                + ")\",\"verification\":\"no run left for the draft\"}").status()).isEqualTo(200);
        assertFrozen(api.post("alice", "/api/applications/" + id + "/submit", null, ApiFlows.key()), incident);
        assertThat(api.post("dba2", base + "/close", null).status()).isEqualTo(200);

        Map<String, Object> closed = db.business().queryForMap("select * from reconciliation_incident where id = ?", incident);
        assertThat(closed).containsEntry("state", "CLOSED").containsEntry("proposed_by", "dba1").containsEntry("approved_by", "dba2")
                .containsEntry("executed_by", "dba1").containsEntry("closed_by", "dba2");
        assertThat((String) closed.get("verification")).contains("no run left").contains("rules after the fix: none");
        assertThat(db.business().queryForList("select action from recovery_audit where detail like ? order by seq", String.class,
                "incident #" + incident + " %")).containsExactly("INCIDENT_OPENED", "INCIDENT_PROPOSED", "INCIDENT_APPROVED",
                "INCIDENT_EXECUTED", "INCIDENT_CLOSED");
        assertThat(db.business().queryForList("select actor || ' ' || coalesce(actor_roles, '-') from recovery_audit"
                + " where application_id = ? and action like 'INCIDENT_%' order by seq", String.class, id))
                .as("each incident step on the application's own trail, with who took it")
                .hasSize(5).endsWith("dba1 DBA", "dba2 DBA", "dba1 DBA", "dba2 DBA");
        assertThat(api.post("alice", "/api/applications/" + id + "/submit", null, ApiFlows.key()).status())
                .as("closed: the application acts again").isEqualTo(200);
    }

    @Test
    void aSecondInstanceStartedAroundTheServiceIsAnIncidentThatFreezesDecisions() {
        long id = ApiFlows.createDraft(api, "LOW", false);
        String run = ApiFlows.submit(api, id);
        String duplicate = runtime.startProcessInstanceByKey("applicationApproval", Long.toString(id),
                Map.of("applicantId", "alice", "sensitive", false, "riskLevel", "LOW", ActionFence.VARIABLE, 0L)).getId();
        ageApplication(id);

        JsonNode result = runAndWait("INCREMENTAL");

        long incident = openIncident(id, "TWO_ACTIVE_INSTANCES");
        assertThat(openIncident(id, "INSTANCE_WITHOUT_BINDING")).as("the duplicate has no binding either").isPositive();
        assertThat(db.business().queryForObject("select evidence from reconciliation_incident where id = ?", String.class, incident))
                .contains(run).contains(duplicate);
        assertThat(counts(result, "TWO_ACTIVE_INSTANCES").get("incidents").asInt()).isEqualTo(1);
        Api.Response decision = ApiFlows.complete(api, "bob", ApiFlows.openTaskId(db, run, "managerApproval"), "APPROVE");
        assertThat(decision.status()).isEqualTo(409);
        assertThat(decision.json().get("code").asString()).isEqualTo("APPLICATION_FROZEN");
        assertThat(db.workflow().queryForObject("select count(*) from act_ru_task where proc_inst_id_ = ?", Integer.class, run))
                .as("nothing moved").isEqualTo(1);
        assertThat(db.business().queryForObject("select count(*) from reconciliation_repair where application_id = ?", Integer.class, id))
                .as("never picks one of two runs by itself").isZero();
    }

    @Test
    void aDeletedBindingOfTheOnlyRunIsWrittenBack() {
        long id = ApiFlows.createDraft(api, "LOW", false);
        String run = ApiFlows.submit(api, id);
        db.business().update("delete from business_process_binding where process_instance_id = ?", run);
        ageApplication(id);

        runAndWait("INCREMENTAL");

        assertThat(db.business().queryForMap("select binding_status, lifecycle_no from business_process_binding where process_instance_id = ?",
                run)).containsEntry("binding_status", "ACTIVE").containsEntry("lifecycle_no", 1);
        assertThat(db.business().queryForObject("select count(*) from reconciliation_repair where application_id = ? and rule_id = ?"
                + " and outcome = 'APPLIED'", Integer.class, id, "INSTANCE_WITHOUT_BINDING")).isEqualTo(1);
        assertThat(ApiFlows.complete(api, "bob", ApiFlows.openTaskId(db, run, "managerApproval"), "APPROVE").status())
                .as("not frozen: a repair is no incident").isEqualTo(200);
    }

    @Test
    void aSubmittingApplicationWithItsRunIsBoundAndMarkedApproving() {
        long id = ApiFlows.createDraft(api, "LOW", false);
        String run = ApiFlows.submit(api, id);
        db.business().update("delete from business_process_binding where process_instance_id = ?", run);
        db.business().update("update application set approval_status = 'SUBMITTING', process_instance_id = null where id = ?", id);
        ageApplication(id);

        runAndWait("INCREMENTAL");

        assertThat(db.business().queryForMap("select approval_status, process_instance_id from application where id = ?", id))
                .containsEntry("approval_status", "APPROVING").containsEntry("process_instance_id", run);
        assertThat(db.business().queryForObject("select count(*) from business_process_binding where process_instance_id = ?",
                Integer.class, run)).isEqualTo(1);
        assertThat(db.business().queryForObject("select count(*) from reconciliation_repair where application_id = ? and rule_id = ?",
                Integer.class, id, "SUBMITTING_WITH_INSTANCE")).isEqualTo(1);
    }

    @Test
    void manualUpdatesOutsideTheSafeBoundaryBecomeIncidents() {
        long submitting = ApiFlows.createDraft(api, "LOW", false);
        db.business().update("update application set approval_status = 'SUBMITTING', lifecycle_no = 1 where id = ?", submitting);
        long approved = ApiFlows.createDraft(api, "LOW", false);
        ApiFlows.submit(api, approved);
        db.business().update("update application set approval_status = 'APPROVED' where id = ?", approved);
        long canceled = ApiFlows.createDraft(api, "LOW", false);
        ApiFlows.submit(api, canceled);
        db.business().update("update application set approval_status = 'CANCELED' where id = ?", canceled);
        long stuck = ApiFlows.createDraft(api, "LOW", false);
        ApiFlows.submit(api, stuck);
        db.business().update("update workflow_command set command_status = 'PROCESSING', created_at = now() - interval '1 hour'"
                + " where business_id = ? and command_type = 'SUBMIT'", Long.toString(stuck));
        List.of(submitting, approved, canceled, stuck).forEach(this::ageApplication);

        runAndWait("INCREMENTAL");

        openIncident(submitting, "SUBMITTING_NO_INSTANCE");
        openIncident(approved, "DECIDED_PROCESS_ACTIVE");
        openIncident(canceled, "CANCELED_LIVE_WORK");
        openIncident(stuck, "COMMAND_STUCK");
        assertThat(api.get("dba1", "/api/admin/reconciliation/incidents?state=OPEN&rule=COMMAND_STUCK&application=" + stuck).json()
                .size()).isEqualTo(1);
        assertThat(api.get("erin", "/actuator/prometheus", "text/plain").body())
                .containsPattern("lockstep_reconciliation_submitting_oldest_age_seconds [1-9]");
    }

    @Test
    void aMissingProjectionRowIsRebuiltFromTheEngine() {
        long id = ApiFlows.createDraft(api, "LOW", false);
        String run = ApiFlows.submit(api, id);
        db.business().update("delete from task_projection where process_instance_id = ? and state = 'OPEN'", run);
        ageApplication(id);

        runAndWait("INCREMENTAL");

        assertThat(db.business().queryForList("select task_id from task_projection where process_instance_id = ? and state = 'OPEN'",
                String.class, run)).containsExactly(ApiFlows.openTaskId(db, run, "managerApproval"));
        assertThat(db.business().queryForObject("select count(*) from reconciliation_repair where application_id = ? and rule_id = ?",
                Integer.class, id, "PROJECTION_DRIFT")).isEqualTo(1);
    }

    /**
     * Issue 29 item 8: a projection drift on one application is repaired by rewriting that application's rows alone,
     * keeping their deadline marks; another application's rows, too recent to be judged and holding a marker no
     * rewrite from the engine would keep, are the same rows afterwards, row version (xmin) included.
     */
    @Test
    void aProjectionDriftIsRepairedByRewritingThatApplicationsRowsAlone() {
        long drifted = ApiFlows.createDraft(api, "LOW", false);
        String run = ApiFlows.submit(api, drifted);
        approve("bob", run, "managerApproval");
        String finalTask = ApiFlows.openTaskId(db, run, "finalApproval");
        db.business().update("update task_projection set overdue_since = due_at - interval '1 hour' where task_id = ?", finalTask);
        List<Map<String, Object>> engineRows = projectionRows(drifted);
        Map<String, Object> marks = deadlineMarks(finalTask);
        assertThat(marks.get("due_at")).as("the step's deadline policy set a due date").isNotNull();
        db.business().update("update task_projection set task_definition_key = 'legalReview', task_name = 'drifted' where task_id = ?",
                finalTask);
        long other = ApiFlows.createDraft(api, "LOW", false);
        String otherRun = ApiFlows.submit(api, other);
        String otherName = db.business().queryForObject("select task_name from task_projection where process_instance_id = ?",
                String.class, otherRun);
        db.business().update("update task_projection set task_name = 'marker: not rewritten' where process_instance_id = ?", otherRun);
        List<Map<String, Object>> otherRows = storedRows(other);
        ageApplication(drifted);

        runAndWait("INCREMENTAL");

        assertThat(storedRows(other)).as("the other application's rows and offers: not rewritten").isEqualTo(otherRows);
        assertThat(projectionRows(drifted)).as("the drifted application's rows, written again from the engine").isEqualTo(engineRows);
        assertThat(deadlineMarks(finalTask)).as("the projection's own deadline marks are kept").isEqualTo(marks);
        assertThat(db.business().queryForList("select rule_id, outcome from reconciliation_repair where application_id = ?", drifted))
                .containsExactly(Map.of("rule_id", "PROJECTION_DRIFT", "outcome", "APPLIED"));
        assertThat(db.business().queryForObject("select detail from recovery_audit where action = 'RECONCILIATION_REPAIR'"
                + " and detail like ?", String.class, "application " + drifted + " rule PROJECTION_DRIFT%"))
                .contains("rewriteApplication", "2 rows");
        ProjectionAssertions.assertOffersMatchProjection(db);
        db.business().update("update task_projection set task_name = ? where process_instance_id = ?", otherName, otherRun);
    }

    /**
     * Issue 29 item 8: while the repair of one application's projection is held open inside its transaction (paused
     * after its audit entry, the last thing it writes, with everything it locked still locked), a task command on
     * another application goes through. The whole-table rebuild this replaced held the table's EXCLUSIVE lock there.
     */
    @Test
    void aTaskCommandOnAnotherApplicationGoesThroughWhileOneApplicationsProjectionIsRepaired() throws Exception {
        long drifted = ApiFlows.createDraft(api, "LOW", false);
        String run = ApiFlows.submit(api, drifted);
        db.business().update("update task_projection set task_definition_key = 'legalReview' where process_instance_id = ?", run);
        long other = ApiFlows.createDraft(api, "LOW", false);
        String otherTask = ApiFlows.openTaskId(db, ApiFlows.submit(api, other), "managerApproval");
        Evidence detected = reader.read(db.business(), drifted).orElseThrow();
        Finding finding = ApplicationRule.PROJECTION_DRIFT.check(detected).orElseThrow();
        InjectedFaults.Pause pause = faults.pauseAfter("recoveryAuditTrail", "append");
        ExecutorService executor = Executors.newSingleThreadExecutor();
        try {
            Future<SafeRepairs.Outcome> repair = executor.submit(() -> repairs.repair(finding, detected, null, "test"));
            pause.awaitReachedBy(repair);

            Api.Response decided = ApiFlows.complete(api, "bob", otherTask, "APPROVE");

            assertThat(decided.status()).as(decided.toString()).isEqualTo(200);
            assertThat(repair).as("the repair is still open").isNotDone();
            pause.release();
            assertThat(repair.get()).isEqualTo(SafeRepairs.Outcome.APPLIED);
        } finally {
            pause.release();
            executor.shutdown();
        }
        assertThat(db.business().queryForList("select task_definition_key from task_projection where process_instance_id = ?",
                String.class, run)).containsExactly("managerApproval");
        assertThat(db.business().queryForObject("select state from task_projection where task_id = ?", String.class, otherTask))
                .isEqualTo("COMPLETED");
    }

    /**
     * Issue 38: an open task the projection lists with other hands than the engine (assignee, owner, delegation state) is
     * repaired by writing that task's row again, not by a rebuild: another application's drifted row, too recent to be
     * judged, stays as it was.
     */
    @Test
    void anOpenTaskHeldOtherwiseInTheProjectionIsRepairedForThatTaskAlone() {
        long id = ApiFlows.createDraft(api, "LOW", true);
        String run = ApiFlows.submit(api, id);
        approve("bob", run, "managerApproval");
        String legal = ApiFlows.openTaskId(db, run, "legalReview");
        String finance = ApiFlows.openTaskId(db, run, "financeReview");
        assertThat(api.post("carol", "/api/tasks/" + legal + "/claim", null).status()).isEqualTo(200);
        db.business().update("update task_projection set owner = 'mallory', delegation_state = 'PENDING' where task_id = ?", legal);
        db.business().update("update task_projection set assignee = 'mallory' where task_id = ?", finance);
        long recent = ApiFlows.createDraft(api, "LOW", false);
        String recentRun = ApiFlows.submit(api, recent);
        db.business().update("update task_projection set assignee = 'mallory' where process_instance_id = ?", recentRun);
        ageApplication(id);

        runAndWait("INCREMENTAL");

        assertThat(db.business().queryForMap("select assignee, owner, delegation_state from task_projection where task_id = ?", legal))
                .containsEntry("assignee", "carol").containsEntry("owner", null).containsEntry("delegation_state", null);
        assertThat(db.business().queryForObject("select assignee from task_projection where task_id = ?", String.class, finance))
                .isNull();
        assertThat(db.business().queryForList("select rule_id, outcome from reconciliation_repair where application_id = ?", id))
                .containsExactly(Map.of("rule_id", "TASK_HOLDER_DRIFT", "outcome", "APPLIED"));
        assertThat(db.business().queryForObject("select count(*) from recovery_audit where action = 'RECONCILIATION_REPAIR'"
                + " and detail like ? and detail like ? and detail like ?", Integer.class,
                "application " + id + " rule TASK_HOLDER_DRIFT%", "%" + legal + "%", "%" + finance + "%")).isEqualTo(1);
        assertThat(db.business().queryForList("select assignee from task_projection where process_instance_id = ?", String.class,
                recentRun)).as("no rebuild: the other application's row is untouched").containsExactly("mallory");
        db.business().update("update task_projection set assignee = null where process_instance_id = ?", recentRun);
    }

    @Test
    void aRepairDoesNothingWhenTheEvidenceChangedSinceDetection() {
        long id = ApiFlows.createDraft(api, "LOW", false);
        String run = ApiFlows.submit(api, id);
        Map<String, Object> binding = db.business().queryForMap("select * from business_process_binding where process_instance_id = ?", run);
        db.business().update("delete from business_process_binding where process_instance_id = ?", run);
        org.springframework.jdbc.core.JdbcTemplate plain = db.business();
        Evidence detected = reader.read(plain, id).orElseThrow();
        Finding finding = ApplicationRule.INSTANCE_WITHOUT_BINDING.check(detected).orElseThrow();
        assertThat(finding.classification()).isEqualTo(Classification.REPAIRABLE);
        // between detection and repair, someone else puts the binding back (with another status)
        db.business().update("""
                insert into business_process_binding (business_type, business_id, process_type, process_instance_id,
                       process_definition_id, lifecycle_no, binding_status, created_at)
                values (?, ?, ?, ?, ?, ?, 'ACTIVE', now())
                """, binding.get("business_type"), binding.get("business_id"), binding.get("process_type"), run,
                binding.get("process_definition_id"), binding.get("lifecycle_no"));

        SafeRepairs.Outcome outcome = repairs.repair(finding, detected, null, "test");

        assertThat(outcome).isEqualTo(SafeRepairs.Outcome.EVIDENCE_CHANGED);
        assertThat(db.business().queryForObject("select count(*) from business_process_binding where process_instance_id = ?",
                Integer.class, run)).isEqualTo(1);
        assertThat(db.business().queryForObject("select outcome from reconciliation_repair where application_id = ?", String.class, id))
                .isEqualTo("EVIDENCE_CHANGED");
    }

    @Test
    void runsAreAdminOnlyAndRejectAnUnknownKind() {
        assertThat(api.post("dba1", "/api/admin/reconciliation/runs", "{}").status()).isEqualTo(403);
        Api.Response unknown = api.post("erin", "/api/admin/reconciliation/runs", "{\"kind\":\"SOMETIMES\"}");
        assertThat(unknown.status()).isEqualTo(400);
        assertThat(unknown.json().get("code").asString()).isEqualTo("INVALID_RUN_KIND");
        assertThat(api.get("erin", "/api/admin/reconciliation/runs/999999").json().get("code").asString()).isEqualTo("RUN_NOT_FOUND");
    }

    private void approve(String user, String run, String taskKey) {
        Api.Response response = ApiFlows.complete(api, user, ApiFlows.openTaskId(db, run, taskKey), "APPROVE");
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
    }

    private List<Map<String, Object>> projectionRows(long applicationId) {
        return ProjectionAssertions.allRows(db).stream().filter(row -> ((Number) row.get("application_id")).longValue() == applicationId)
                .toList();
    }

    private Map<String, Object> deadlineMarks(String taskId) {
        return db.business().queryForMap("select due_at, overdue_since from task_projection where task_id = ?", taskId);
    }

    /** The application's projection rows as stored, with each row's version, and its task_offer rows. */
    private List<Map<String, Object>> storedRows(long applicationId) {
        return db.business().queryForList("""
                select p::text as projection_row, p.xmin::text as version, (select array_agg(o::text order by o.group_id)
                       from task_offer o where o.task_id = p.task_id)::text as offers
                  from task_projection p where p.application_id = ? order by p.task_id
                """, applicationId);
    }

    private void ageApplication(long id) {
        ReconciliationRuns.ageApplication(db, id);
    }

    private String status(long id) {
        return db.business().queryForObject("select approval_status from application where id = ?", String.class, id);
    }

    private long openIncident(long applicationId, String rule) {
        return ReconciliationRuns.openIncident(db, applicationId, rule);
    }

    private static void assertFrozen(Api.Response response, long incident) {
        assertThat(response.status()).as(response.toString()).isEqualTo(409);
        assertThat(response.json().get("code").asString()).isEqualTo("APPLICATION_FROZEN");
        assertThat(response.json().get("detail").asString()).contains("incident " + incident);
    }

    private JsonNode runAndWait(String kind) {
        return ReconciliationRuns.runAndWait(api, kind);
    }

    private static JsonNode counts(JsonNode run, String rule) {
        for (JsonNode row : run.get("rules")) {
            if (row.get("rule_id").asString().equals(rule)) {
                return row;
            }
        }
        throw new AssertionError("no counts for " + rule + " in " + run);
    }
}
