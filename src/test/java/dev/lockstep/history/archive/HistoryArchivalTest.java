package dev.lockstep.history.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.approval.ApiFlows;
import dev.lockstep.chaos.InvariantChecker;
import dev.lockstep.platform.audit.AuditTrail;
import dev.lockstep.support.Api;
import dev.lockstep.support.UseCaseIntegrationTest;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.persistence.EntityManager;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.StreamSupport;
import org.activiti.engine.HistoryService;
import org.activiti.spring.SpringProcessEngineConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.PlatformTransactionManager;
import tools.jackson.databind.JsonNode;

/**
 * History archival against the real engine and both embedded databases. Processes are made "old" with
 * the engine's clock (set back 400 days while they run), so they end long before the 180-day cut-off;
 * batches run through the admin endpoint. What history and archive hold is read with plain SQL.
 */
class HistoryArchivalTest extends UseCaseIntegrationTest {

    private static final String RUNS = "/api/admin/history-archival/runs";
    private static final Instant LONG_AGO = Instant.now().minus(Duration.ofDays(400)).truncatedTo(ChronoUnit.HOURS);
    private static final AtomicInteger HOURS = new AtomicInteger();

    @Autowired
    SpringProcessEngineConfiguration engine;
    @Autowired
    PlatformTransactionManager transactions;
    @Autowired
    EntityManager entityManager;
    @Autowired
    HistoryService history;
    @Autowired
    HistoryArchive archive;
    @Autowired
    AuditTrail auditTrail;

    /** An application decided long ago: the hour its run started (its tasks' creation times lie within it) and its run. */
    record Old(long id, String run, Instant startedAt) {
    }

    @AfterEach
    void engineClockBackToNow() {
        engine.getClock().reset();
    }

    @Test
    void aBatchMovesEveryHistoryRowOfAnOldProcessOnceAndLeavesRecentAndRunningOnesInHistory() {
        Old approved = oldApplication(true);
        Old withdrawn = oldApplication(false);
        long recent = ApiFlows.createDraft(api, "LOW", false);
        String recentRun = ApiFlows.submit(api, recent);
        approve("bob", recentRun, "managerApproval");
        approve("frank", recentRun, "finalApproval");
        String runningRun = ApiFlows.submit(api, ApiFlows.createDraft(api, "LOW", false));
        Map<String, Integer> approvedHistory = historyRows(approved.run());
        Map<String, Integer> withdrawnHistory = historyRows(withdrawn.run());
        Map<String, Integer> recentHistory = historyRows(recentRun);
        Map<String, Integer> runningHistory = historyRows(runningRun);
        assertThat(approvedHistory.get("tasks")).isEqualTo(2);
        assertThat(approvedHistory.get("identity links")).as("candidate groups and participants are history too").isPositive();
        assertThat(approvedHistory.get("variables")).isPositive();
        List<String> byteArrays = db.workflow().queryForList("select bytearray_id_ from act_hi_varinst where proc_inst_id_ = ?"
                + " and bytearray_id_ is not null", String.class, approved.run());

        JsonNode run = runBatches(100);

        assertThat(run.get("processes").asInt()).isGreaterThanOrEqualTo(2);
        assertThat(historyRows(approved.run()).values()).as("the approved run's history").containsOnly(0);
        assertThat(historyRows(withdrawn.run()).values()).as("the withdrawn run's history").containsOnly(0);
        for (String byteArray : byteArrays) {
            assertThat(db.workflow().queryForObject("select count(*) from act_ge_bytearray where id_ = ?", Integer.class, byteArray))
                    .as("serialized variable value %s deleted with its history", byteArray).isZero();
        }
        assertThat(archiveRows(approved.run())).isEqualTo(approvedHistory);
        assertThat(archiveRows(withdrawn.run())).isEqualTo(withdrawnHistory);
        assertThat(db.business().queryForMap("select business_key, outcome, end_time is not null as ended from archived_process"
                + " where process_instance_id = ?", approved.run()))
                .containsEntry("business_key", Long.toString(approved.id())).containsEntry("outcome", "APPROVED")
                .containsEntry("ended", true);
        assertThat(db.business().queryForObject("select outcome from archived_process where process_instance_id = ?", String.class,
                withdrawn.run())).isEqualTo("WITHDRAWN");
        assertThat(historyRows(recentRun)).as("ended 0 days ago: stays in history").isEqualTo(recentHistory);
        assertThat(historyRows(runningRun)).as("still running: stays in history").isEqualTo(runningHistory);
        assertThat(archiveRows(recentRun).values()).containsOnly(0);
        Instant archivedAt = db.business().queryForObject("select archived_at from archived_process where process_instance_id = ?",
                java.time.OffsetDateTime.class, approved.run()).toInstant();
        assertThat(db.business().queryForObject("select count(*) from recovery_audit where action = 'HISTORY_ARCHIVED'"
                + " and actor = 'erin' and detail like ?", Integer.class, "%archived_at " + archivedAt)).isEqualTo(1);
        assertThat(db.preparedTransactions()).isEmpty();
        assertThat(invariantViolations(approved, withdrawn)).as("both databases agree about the archived runs").isEmpty();

        JsonNode again = runBatches(100);

        assertThat(again.get("processes").asInt()).as("a re-run finds nothing left to move").isZero();
        assertThat(archiveRows(approved.run())).as("and writes nothing twice").isEqualTo(approvedHistory);
        assertThat(historyRows(recentRun)).isEqualTo(recentHistory);
    }

    @Test
    void aBatchRolledBackByAFaultLeavesHistoryAndArchiveExactlyAsTheyWere() {
        Old first = oldApplication(true);
        Old second = oldApplication(true);
        Map<String, Integer> firstHistory = historyRows(first.run());
        Map<String, Integer> secondHistory = historyRows(second.run());
        Map<String, Integer> archiveBefore = archiveTotals();
        int auditedBatches = auditedBatches();

        // mid-batch: the first process archived and deleted from history, the second archived, then the fault
        faults.afterCall("historyArchive", "write", () -> faults.failAfter("historyArchive", "write"));
        assertRolledBack(runBatchesResponse(1));
        assertThat(historyRows(first.run())).isEqualTo(firstHistory);
        assertThat(historyRows(second.run())).isEqualTo(secondHistory);
        assertThat(archiveTotals()).isEqualTo(archiveBefore);

        // at the very end: every process moved, the batch's audit entry written, then the fault
        faults.failAfter("recoveryAuditTrail", "append");
        assertRolledBack(runBatchesResponse(1));
        assertThat(historyRows(first.run())).isEqualTo(firstHistory);
        assertThat(historyRows(second.run())).isEqualTo(secondHistory);
        assertThat(archiveTotals()).isEqualTo(archiveBefore);
        assertThat(auditedBatches()).as("no audit entry of a batch that did not happen").isEqualTo(auditedBatches);
        assertThat(db.preparedTransactions()).isEmpty();

        runBatches(100);

        assertThat(historyRows(first.run()).values()).containsOnly(0);
        assertThat(archiveRows(first.run())).isEqualTo(firstHistory);
        assertThat(archiveRows(second.run())).isEqualTo(secondHistory);
    }

    @Test
    void aBatchThatReachesItsTimeLimitCommitsWhatItMovedAndTheNextBatchesTakeTheRest() {
        Old first = oldApplication(true);
        Old second = oldApplication(true);
        Map<String, Integer> firstHistory = historyRows(first.run());
        Map<String, Integer> secondHistory = historyRows(second.run());
        int auditedBefore = auditedBatches();
        // a limit of zero: every batch's time is up once it has moved its first process
        HistoryArchival archival = new HistoryArchival(transactions, entityManager, history, archive, auditTrail,
                new ArchivalProperties(true, Duration.ofDays(180), 50, Duration.ZERO, Duration.ZERO, Duration.ofMinutes(10), 1, 5,
                        ZoneId.of("UTC")), Clock.systemUTC(), new SimpleMeterRegistry());

        HistoryArchival.Run one = archival.onDemand(1, "erin");

        assertThat(one.batches()).singleElement().satisfies(batch -> {
            assertThat(batch.processes()).isEqualTo(1);
            assertThat(batch.cutShort()).isTrue();
        });
        assertThat(one.stoppedBecause()).isEqualTo("batch limit reached");

        HistoryArchival.Run rest = archival.onDemand(100, "erin");

        assertThat(rest.stoppedBecause()).isEqualTo("nothing more is due");
        // one process per batch; the last one moved the last due process, so its time limit cut nothing short
        List<HistoryArchival.Batch> batches = rest.batches();
        assertThat(batches).isNotEmpty().allSatisfy(batch -> assertThat(batch.processes()).isEqualTo(1));
        assertThat(batches.subList(0, batches.size() - 1)).allSatisfy(batch -> assertThat(batch.cutShort()).isTrue());
        assertThat(batches.get(batches.size() - 1).cutShort()).isFalse();
        assertThat(historyRows(first.run()).values()).containsOnly(0);
        assertThat(historyRows(second.run()).values()).containsOnly(0);
        assertThat(archiveRows(first.run())).isEqualTo(firstHistory);
        assertThat(archiveRows(second.run())).isEqualTo(secondHistory);
        assertThat(auditedBatches()).as("one audit entry per batch").isEqualTo(auditedBefore + 1 + batches.size());
        assertThat(db.preparedTransactions()).isEmpty();
    }

    @Test
    void anArchivedApplicationReadsTheSameThroughTheApiAndItsTasksStayDone() {
        Old old = oldApplication(true);
        String managerTask = db.workflow().queryForObject("select id_ from act_hi_taskinst where proc_inst_id_ = ?"
                + " and task_def_key_ = 'managerApproval'", String.class, old.run());
        String details = api.get("alice", "/api/applications/" + old.id()).body();
        String done = doneList("bob", old);
        assertThat(done).contains(managerTask);

        runBatches(100);
        assertThat(historyRows(old.run()).values()).containsOnly(0);

        assertThat(api.get("alice", "/api/applications/" + old.id()).body()).as("the application with its trail").isEqualTo(details);
        assertThat(doneList("bob", old)).as("bob's done list").isEqualTo(done);
        Api.Response decideAgain = ApiFlows.complete(api, "bob", managerTask, "APPROVE");
        assertThat(decideAgain.status()).as(decideAgain.toString()).isEqualTo(409);
        assertThat(decideAgain.json().get("code").asString()).isEqualTo("TASK_ALREADY_COMPLETED");

        Api.Response rebuilt = api.post("erin", "/api/admin/task-projection/rebuild", null);
        assertThat(rebuilt.status()).as(rebuilt.toString()).isEqualTo(200);
        assertThat(db.business().queryForObject("select state from task_projection where task_id = ?", String.class, managerTask))
                .as("a rebuild takes archived tasks from the archive").isEqualTo("COMPLETED");
        assertThat(doneList("bob", old)).as("bob's done list after a rebuild").isEqualTo(done);
    }

    /**
     * An application of a type registered and deployed in the test (issue 30), decided long ago: archived like a built-in
     * one, its history moved once and its answer through the API unchanged.
     */
    @Test
    void anOldApplicationOfADeployedTypeIsArchivedLikeABuiltInOne() {
        String type = "ARCHIVED_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8).toUpperCase(Locale.ROOT);
        assertThat(api.post("erin", "/api/business-types", """
                {"key": "%s", "name": "Archived", "schema": {"type": "object"}, "publishes": false}""".formatted(type)).status())
                .isEqualTo(201);
        assertThat(api.post("erin", "/api/business-types/" + type + "/definitions", """
                {"name": "One step", "steps": [{"id": "managerApproval", "candidateGroups": ["managers"]}]}""").status()).isEqualTo(201);
        assertThat(api.post("grace", "/api/business-types/" + type + "/definitions/1/approve", null).status()).isEqualTo(200);
        Instant start = LONG_AGO.plus(Duration.ofHours(HOURS.getAndIncrement()));
        engineAt(start);
        Api.Response created = api.post("alice", "/api/applications", "{\"type\": \"%s\", \"title\": \"old typed\", \"fields\": {}}"
                .formatted(type));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        long id = created.json().get("id").asLong();
        String run = ApiFlows.submit(api, id);
        engineAt(start.plusSeconds(60));
        approve("bob", run, "managerApproval");
        engine.getClock().reset();
        Map<String, Integer> historyBefore = historyRows(run);
        String details = api.get("alice", "/api/applications/" + id).body();

        runBatches(100);

        assertThat(historyRows(run).values()).as("the typed run's history").containsOnly(0);
        assertThat(archiveRows(run)).isEqualTo(historyBefore);
        assertThat(db.business().queryForObject("select outcome from archived_process where process_instance_id = ?", String.class, run))
                .isEqualTo("APPROVED");
        assertThat(api.get("alice", "/api/applications/" + id).body()).as("the application with its trail").isEqualTo(details);
        assertThat(invariantViolations(new Old(id, run, start))).isEmpty();
    }

    @Test
    void reconciliationAndTheCrossDatabaseCheckTakeAnArchivedRunForEnded() {
        Old old = oldApplication(true);
        runBatches(100);
        db.business().update("update application set updated_at = updated_at - interval '1 hour' where id = ?", old.id());

        assertThat(mismatchOf(old.id())).as("APPROVED with its run archived is no mismatch").isNull();
        // the business write-back of the run's end lost (as a branch rolled back by hand leaves it)
        db.business().update("update application set approval_status = 'APPROVING', publish_status = 'NOT_STARTED' where id = ?",
                old.id());
        db.business().update("update business_process_binding set binding_status = 'ACTIVE', ended_at = null"
                + " where process_instance_id = ?", old.run());
        JsonNode mismatch = mismatchOf(old.id());
        assertThat(mismatch).as("APPROVING while its run has ended").isNotNull();
        assertThat(mismatch.get("engineState").asString()).isEqualTo("ENDED");

        Api.Response started = api.post("erin", "/api/admin/reconciliation/runs", "{\"kind\":\"FULL\"}");
        assertThat(started.status()).as(started.toString()).isEqualTo(202);
        awaitRun(started.json().get("id").asLong());

        assertThat(db.business().queryForObject("select count(*) from reconciliation_incident where application_id = ?",
                Integer.class, old.id())).as("an archived run is not missing history").isZero();
        assertThat(db.business().queryForList("select rule_id from reconciliation_repair where application_id = ?"
                + " and outcome = 'APPLIED'", String.class, old.id())).contains("APPROVING_PROCESS_ENDED");
        assertThat(db.business().queryForObject("select approval_status from application where id = ?", String.class, old.id()))
                .as("settled from the outcome the archive keeps").isEqualTo("APPROVED");
    }

    @Test
    void theEngineRunsNewProcessesWithItsHistoryPartlyMoved() {
        oldApplication(true);
        runBatches(100);
        assertThat(db.business().queryForObject("select count(*) from archived_process", Integer.class)).isPositive();

        long id = ApiFlows.createDraft(api, "LOW", false);
        String run = ApiFlows.submit(api, id);
        approve("bob", run, "managerApproval");
        approve("frank", run, "finalApproval");

        assertThat(db.business().queryForObject("select approval_status from application where id = ?", String.class, id))
                .isEqualTo("APPROVED");
        assertThat(db.workflow().queryForObject("select end_time_ is not null from act_hi_procinst where id_ = ?", Boolean.class,
                run)).isTrue();
        assertThat(runBatches(100).get("processes").asInt()).as("ended today: not archived").isZero();
        assertThat(historyRows(run).get("processes")).isEqualTo(1);
    }

    @Test
    void aPausedArchivalMovesNothingUntilResumedAndBothAreAudited() {
        Old old = oldApplication(true);
        Api.Response noReason = api.post("erin", "/api/admin/history-archival/pause", "{}");
        assertThat(noReason.status()).isEqualTo(400);
        assertThat(noReason.json().get("code").asString()).isEqualTo("REASON_REQUIRED");
        assertThat(api.post("bob", "/api/admin/history-archival/pause", "{\"reason\":\"x\"}").status()).isEqualTo(403);

        Api.Response paused = api.post("erin", "/api/admin/history-archival/pause", "{\"reason\":\"month-end close\"}");
        assertThat(paused.status()).as(paused.toString()).isEqualTo(200);
        try {
            assertThat(db.business().queryForMap("select paused, changed_by, reason from history_archival_control"))
                    .containsEntry("paused", true).containsEntry("changed_by", "erin").containsEntry("reason", "month-end close");
            Api.Response refused = runBatchesResponse(1);
            assertThat(refused.status()).isEqualTo(409);
            assertThat(refused.json().get("code").asString()).isEqualTo("ARCHIVAL_PAUSED");
            assertThat(historyRows(old.run()).get("processes")).isEqualTo(1);
        } finally {
            assertThat(api.post("erin", "/api/admin/history-archival/resume", "{\"reason\":\"closed\"}").status()).isEqualTo(200);
        }
        assertThat(db.business().queryForObject("select paused from history_archival_control", Boolean.class)).isFalse();
        assertThat(db.business().queryForList("select action from recovery_audit where action like 'HISTORY_ARCHIVAL_%'"
                + " and actor = 'erin' order by seq desc fetch first 2 rows only", String.class))
                .containsExactly("HISTORY_ARCHIVAL_RESUMED", "HISTORY_ARCHIVAL_PAUSED");

        runBatches(100);
        assertThat(historyRows(old.run()).values()).containsOnly(0);
        JsonNode status = api.get("erin", "/api/admin/history-archival").json();
        assertThat(status.get("paused").asBoolean()).isFalse();
        assertThat(status.get("archivedProcesses").asLong()).isPositive();
        assertThat(status.get("historyProcesses").asLong()).isEqualTo(
                db.workflow().queryForObject("select count(*) from act_hi_procinst", Long.class));
        Api.Response tooMany = runBatchesResponse(101);
        assertThat(tooMany.status()).isEqualTo(400);
        assertThat(tooMany.json().get("code").asString()).isEqualTo("INVALID_BATCH_COUNT");
    }

    /**
     * Created, submitted and decided with the engine's clock in an hour of its own 400 days ago: approved by
     * manager and final approver, or withdrawn by the applicant.
     */
    private Old oldApplication(boolean approve) {
        Instant start = LONG_AGO.plus(Duration.ofHours(HOURS.getAndIncrement()));
        engineAt(start);
        long id = ApiFlows.createDraft(api, "LOW", false);
        String run = ApiFlows.submit(api, id);
        engineAt(start.plusSeconds(60));
        if (approve) {
            approve("bob", run, "managerApproval");
            engineAt(start.plusSeconds(120));
            approve("frank", run, "finalApproval");
        } else {
            Api.Response withdrawn = api.post("alice", "/api/applications/" + id + "/withdraw", "{\"reason\":\"not needed\"}");
            assertThat(withdrawn.status()).as(withdrawn.toString()).isEqualTo(200);
        }
        engine.getClock().reset();
        return new Old(id, run, start);
    }

    private void engineAt(Instant instant) {
        engine.getClock().setCurrentTime(Date.from(instant));
    }

    private void approve(String user, String run, String taskKey) {
        Api.Response response = ApiFlows.complete(api, user, ApiFlows.openTaskId(db, run, taskKey), "APPROVE");
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
    }

    private JsonNode runBatches(int batches) {
        Api.Response response = runBatchesResponse(batches);
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        return response.json();
    }

    private Api.Response runBatchesResponse(int batches) {
        return api.post("erin", RUNS, "{\"batches\": " + batches + "}");
    }

    private void assertRolledBack(Api.Response response) {
        assertThat(response.status()).as(response.toString()).isEqualTo(503);
        assertThat(response.json().get("code").asString()).isEqualTo("ARCHIVAL_BATCH_ROLLED_BACK");
    }

    /** The done list of {@code user} for tasks created in the old application's hour. */
    private String doneList(String user, Old old) {
        Api.Response response = api.get(user, "/api/tasks/done?size=100&createdFrom=" + old.startedAt() + "&createdBefore="
                + old.startedAt().plus(Duration.ofHours(1)));
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        return response.body();
    }

    /** The engine's history rows of one process, by kind (identity links of the process and of its tasks). */
    private Map<String, Integer> historyRows(String run) {
        List<String> tasks = db.workflow().queryForList("select id_ from act_hi_taskinst where proc_inst_id_ = ?", String.class, run);
        Map<String, Integer> rows = new LinkedHashMap<>();
        rows.put("processes", count(db.workflow().queryForObject("select count(*) from act_hi_procinst where id_ = ?", Integer.class,
                run)));
        rows.put("activities", count(db.workflow().queryForObject("select count(*) from act_hi_actinst where proc_inst_id_ = ?",
                Integer.class, run)));
        rows.put("tasks", tasks.size());
        rows.put("variables", count(db.workflow().queryForObject("select count(*) from act_hi_varinst where proc_inst_id_ = ?",
                Integer.class, run)));
        rows.put("identity links", count(db.workflow().queryForObject(
                "select count(*) from act_hi_identitylink where proc_inst_id_ = ? or task_id_ = any (string_to_array(?, ','))",
                Integer.class, run, String.join(",", tasks))));
        rows.put("details", count(db.workflow().queryForObject("select count(*) from act_hi_detail where proc_inst_id_ = ?",
                Integer.class, run)));
        rows.put("comments", count(db.workflow().queryForObject("select count(*) from act_hi_comment where proc_inst_id_ = ?",
                Integer.class, run)));
        return rows;
    }

    /** The archive's rows of one process, in the shape of {@link #historyRows} (details and comments it never holds). */
    private Map<String, Integer> archiveRows(String run) {
        Map<String, Integer> rows = new LinkedHashMap<>();
        rows.put("processes", archived("archived_process", run));
        rows.put("activities", archived("archived_activity", run));
        rows.put("tasks", archived("archived_task", run));
        rows.put("variables", archived("archived_variable", run));
        rows.put("identity links", archived("archived_identity_link", run));
        rows.put("details", 0);
        rows.put("comments", 0);
        return rows;
    }

    private Map<String, Integer> archiveTotals() {
        Map<String, Integer> totals = new LinkedHashMap<>();
        for (String table : List.of("archived_process", "archived_activity", "archived_task", "archived_variable",
                "archived_identity_link")) {
            totals.put(table, db.business().queryForObject("select count(*) from " + table, Integer.class));
        }
        return totals;
    }

    /** The invariant checker's findings about these applications or their runs (other tests break others on purpose). */
    private List<String> invariantViolations(Old... olds) {
        try (Connection business = db.business().getDataSource().getConnection();
                Connection workflow = db.workflow().getDataSource().getConnection()) {
            List<String> runsAndTasks = Arrays.stream(olds).flatMap(old -> java.util.stream.Stream.concat(
                    java.util.stream.Stream.of(old.run()), db.business().queryForList(
                            "select task_id from archived_task where process_instance_id = ?", String.class, old.run()).stream()))
                    .toList();
            return new InvariantChecker().check(business, workflow, false).violations().stream()
                    .filter(violation -> runsAndTasks.stream().anyMatch(violation::contains) || Arrays.stream(olds)
                            .anyMatch(old -> violation.matches(".*\\bapplication " + old.id() + "\\b.*")))
                    .toList();
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    private int auditedBatches() {
        return db.business().queryForObject("select count(*) from recovery_audit where action = 'HISTORY_ARCHIVED'", Integer.class);
    }

    private int archived(String table, String run) {
        return count(db.business().queryForObject("select count(*) from " + table + " where process_instance_id = ?", Integer.class,
                run));
    }

    private static int count(Integer value) {
        return value == null ? 0 : value;
    }

    private JsonNode mismatchOf(long applicationId) {
        Api.Response response = api.get("dba1", "/api/recovery/mismatches");
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        return StreamSupport.stream(response.json().spliterator(), false)
                .filter(mismatch -> mismatch.get("applicationId").asLong() == applicationId).findFirst().orElse(null);
    }

    private void awaitRun(long id) {
        String sql = "select state from reconciliation_run where id = ?";
        await().atMost(Duration.ofMinutes(2)).until(() -> List.of("SUCCEEDED", "FAILED").contains(
                db.business().queryForObject(sql, String.class, id)));
        assertThat(db.business().queryForObject(sql, String.class, id)).isEqualTo("SUCCEEDED");
    }
}
