package dev.lockstep.reconciliation;

import static dev.lockstep.reconciliation.ReconciliationRuns.ageApplication;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.lockstep.approval.ApiFlows;
import dev.lockstep.support.Api;
import dev.lockstep.support.UseCaseIntegrationTest;
import dev.lockstep.transactions.workflow.ActionFence;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import org.activiti.engine.RuntimeService;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A run reads evidence a page of applications at a time (one query per kind of evidence for the whole page): a page
 * must give each application exactly the evidence it would have alone, and differences on applications in different
 * pages must all be found, each on its own application and nowhere else. Asserted with plain SQL.
 */
class ReconciliationPagesTest extends UseCaseIntegrationTest {

    @Autowired
    EvidenceReader reader;
    @Autowired
    RuntimeService runtime;
    @Autowired
    ReconciliationConfiguration.ReconciliationRules rules;
    @Autowired
    CatalogEvidence catalog;
    @Autowired
    SafeRepairs repairs;
    @Autowired
    Incidents incidents;
    @Autowired
    ReconciliationSignals signals;
    @Autowired
    @Qualifier("recoveryBusinessDataSource")
    HikariDataSource business;
    @Autowired
    @Qualifier("reconciliationExecutor")
    ExecutorService executor;
    @Autowired
    ReconciliationProperties settings;
    @Autowired
    ReconciliationDialect dialect;
    @Autowired
    @Qualifier("reconciliationWorkflowDataSource")
    HikariDataSource workflowReads;

    @Test
    void aPageGivesEachApplicationTheEvidenceItWouldHaveAlone() {
        List<Long> ids = new ArrayList<>();
        ids.add(ApiFlows.createDraft(api, "LOW", false));
        long approving = ApiFlows.createDraft(api, "LOW", false);
        ApiFlows.submit(api, approving);
        ids.add(approving);
        // at a declarative flow's step with a deadline: its timer job
        long timed = ApiFlows.draftOnAFlowWithADeadline(api, "P1D");
        String timedRun = ApiFlows.submit(api, timed);
        ids.add(timed);
        // two parallel reviews, one done: one open task, several executions
        long parallel = ApiFlows.createDraft(api, "HIGH", true);
        String parallelRun = ApiFlows.submit(api, parallel);
        approve("bob", parallelRun, "managerApproval", "APPROVE");
        approve("carol", parallelRun, "legalReview", "APPROVE");
        ids.add(parallel);
        long approved = ApiFlows.createDraft(api, "LOW", false);
        String approvedRun = ApiFlows.submit(api, approved);
        approve("bob", approvedRun, "managerApproval", "APPROVE");
        approve("frank", approvedRun, "finalApproval", "APPROVE");
        ids.add(approved);
        // rejected, then submitted again: lifecycle 2 runs, lifecycle 1 ended with its REJECT decision
        long resubmitted = ApiFlows.createDraft(api, "LOW", false);
        approve("bob", ApiFlows.submit(api, resubmitted), "managerApproval", "REJECT");
        ApiFlows.submit(api, resubmitted);
        ids.add(resubmitted);
        // a second run started around the service
        long twoRuns = ApiFlows.createDraft(api, "LOW", false);
        ApiFlows.submit(api, twoRuns);
        runtime.startProcessInstanceByKey("applicationApproval", Long.toString(twoRuns),
                Map.of("applicantId", "alice", "sensitive", false, "riskLevel", "LOW", ActionFence.VARIABLE, 0L));
        ids.add(twoRuns);
        long noSuchApplication = Long.MAX_VALUE - 1;
        ids.add(noSuchApplication);
        assertThat(db.workflow().queryForObject("select count(*) from act_ru_timer_job where process_instance_id_ = ?", Integer.class,
                timedRun)).as("the page has jobs to attribute").isPositive();

        Map<Long, Evidence> page = reader.readPage(db.business(), ids);

        assertThat(page).doesNotContainKey(noSuchApplication);
        for (long id : ids.subList(0, ids.size() - 1)) {
            Evidence alone = reader.read(db.business(), id).orElseThrow();
            assertThat(comparable(page.get(id))).as("application %s read in a page", id).isEqualTo(comparable(alone));
        }
        assertThat(page.get(parallel).activeInstances()).singleElement()
                .satisfies(instance -> assertThat(instance.executions()).isGreaterThan(1));
        assertThat(page.get(resubmitted).endedInstances()).as("lifecycle 1").singleElement()
                .satisfies(ended -> assertThat(ended.outcome()).isEqualTo("REJECTED"));
        assertThat(page.get(resubmitted).decisions()).as("only the current lifecycle's decisions").isEmpty();
        assertThat(page.get(twoRuns).activeInstances()).hasSize(2);
        assertThat(page.get(approved).endedInstances()).singleElement()
                .satisfies(ended -> assertThat(ended.outcome()).isEqualTo("APPROVED"));
    }

    @Test
    void differencesInDifferentPagesOfThreeAreAllFoundEachOnItsOwnApplication() {
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            long id = ApiFlows.createDraft(api, "LOW", false);
            if (i != 2) {
                ApiFlows.submit(api, id);
            }
            ids.add(id);
        }
        String decidedEarly = run(ids.get(1));
        db.business().update("update application set approval_status = 'APPROVED' where id = ?", ids.get(1));
        String unbound = run(ids.get(4));
        db.business().update("delete from business_process_binding where process_instance_id = ?", unbound);
        db.business().update("update task_projection set assignee = 'mallory' where process_instance_id = ? and state = 'OPEN'",
                run(ids.get(6)));
        db.business().update("update application set approval_status = 'SUBMITTING', process_instance_id = null where id = ?",
                ids.get(8));
        runtime.deleteProcessInstance(run(ids.get(8)), "the run a manual UPDATE lost");
        ids.forEach(id -> ageApplication(db, id));

        long runId = reconciliationWithPagesOf(3).runAsScheduledJob(Reconciliation.Kind.FULL, "pages-test");

        assertThat(db.business().queryForObject("select state from reconciliation_run where id = ?", String.class, runId))
                .isEqualTo("SUCCEEDED");
        assertThat(incidentRules(ids.get(1))).containsExactly("DECIDED_PROCESS_ACTIVE");
        assertThat(db.business().queryForObject("select process_instance_id from reconciliation_incident where application_id = ?",
                String.class, ids.get(1))).isEqualTo(decidedEarly);
        assertThat(repairRules(ids.get(4))).containsExactly("INSTANCE_WITHOUT_BINDING");
        assertThat(db.business().queryForObject("select count(*) from business_process_binding where process_instance_id = ?",
                Integer.class, unbound)).isEqualTo(1);
        assertThat(repairRules(ids.get(6))).containsExactly("TASK_HOLDER_DRIFT");
        assertThat(incidentRules(ids.get(8))).containsExactly("SUBMITTING_NO_INSTANCE");
        for (int consistent : List.of(0, 2, 3, 5, 7)) {
            assertThat(incidentRules(ids.get(consistent))).as("incidents of consistent application #%s", consistent).isEmpty();
            assertThat(repairRules(ids.get(consistent))).as("repairs of consistent application #%s", consistent).isEmpty();
        }
        assertThat(incidentRules(ids.get(4))).isEmpty();
        assertThat(incidentRules(ids.get(6))).isEmpty();
        assertThat(db.business().queryForObject("select applications_scanned from reconciliation_run where id = ?", Integer.class,
                runId)).isGreaterThanOrEqualTo(ids.size());
    }

    @Test
    void thePlainReadsOfTheEngineTablesCannotWrite() {
        assertThatThrownBy(() -> new JdbcTemplate(workflowReads).execute("create table reconciliation_write_probe (id int)"))
                .hasMessageContaining("read-only transaction");
        assertThat(db.workflow().queryForObject("select count(*) from information_schema.tables"
                + " where table_name = 'reconciliation_write_probe'", Integer.class)).isZero();
    }

    /** The run as the context builds it, except that it reads evidence {@code pageSize} applications at a time. */
    private Reconciliation reconciliationWithPagesOf(int pageSize) {
        ReconciliationProperties small = new ReconciliationProperties(false, settings.incrementalInterval(),
                settings.fullSweepInterval(), 1_000_000, Duration.ofMinutes(5), settings.settle(), settings.commandSla(),
                settings.outboxSla(), pageSize);
        return new Reconciliation(rules.all(), reader, catalog, repairs, incidents, signals, new JdbcTemplate(business), executor,
                small, dialect, Clock.systemUTC());
    }

    /** Evidence without its read time (the outbox SLA's cut-off moves with the clock). */
    private static Evidence comparable(Evidence evidence) {
        Evidence.Publication publication = evidence.publication();
        return new Evidence(evidence.applicationId(), evidence.approvalStatus(), evidence.processInstanceId(),
                evidence.processDefinitionId(), evidence.lifecycleNo(), evidence.actionSeq(), evidence.updatedAt(), evidence.bindings(), evidence.decisions(),
                evidence.stuckCommands(), evidence.activeInstances(), evidence.endedInstances(), evidence.openTasks(), evidence.jobs(),
                evidence.projectedOpenTasks(), new Evidence.Publication(publication.status(), publication.events(),
                publication.catalog(), null));
    }

    private String run(long applicationId) {
        return db.business().queryForObject("select process_instance_id from business_process_binding where business_id = ?"
                + " and binding_status = 'ACTIVE'", String.class, Long.toString(applicationId));
    }

    private List<String> incidentRules(long applicationId) {
        return db.business().queryForList("select rule_id from reconciliation_incident where application_id = ? order by rule_id",
                String.class, applicationId);
    }

    private List<String> repairRules(long applicationId) {
        return db.business().queryForList("select rule_id from reconciliation_repair where application_id = ? and outcome = 'APPLIED'"
                + " order by rule_id", String.class, applicationId);
    }

    private void approve(String user, String run, String taskKey, String decision) {
        Api.Response response = ApiFlows.complete(api, user, ApiFlows.openTaskId(db, run, taskKey), decision);
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
    }
}
