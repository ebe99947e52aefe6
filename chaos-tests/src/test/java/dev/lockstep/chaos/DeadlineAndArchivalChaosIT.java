package dev.lockstep.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.chaos.report.ScenarioRecord;
import dev.lockstep.chaos.support.LockstepClient.Answer;
import dev.lockstep.chaos.support.LockstepClient;
import dev.lockstep.chaos.support.ServiceProcess.Timeouts;
import dev.lockstep.chaos.support.ServiceProcess;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import tools.jackson.databind.JsonNode;

/**
 * Background work halted between the prepares of its XA transaction (issue 16): a deadline's escalation
 * fired by the engine's job executor (43), and a history archival batch (44). Neither has a client that
 * retries; what must hold instead is all-or-nothing after recovery, and that the work is done exactly
 * once when it runs again (the timer fires again by itself, the batch is run again by the operator).
 * Then work that audits inside its transaction, left in doubt by a node that never returns and resolved
 * by two DBAs in another node's recovery console (issue 29): the archival batch (76), a termination (77).
 *
 * <p>One service configuration serves both: the job executor on (ServiceProcess keeps it off for every
 * other harness), {@code managerApproval} reminding after 3 s and escalating after 10 s, job locks short
 * enough that a firing lost in the crash fires again soon after the restart, and scheduled archival off
 * (the scenario runs its batches through the admin API). The halt rule marks the thread that enters the
 * escalation or the batch, then the global transaction that thread enlists a database in, and halts only
 * that transaction (after its business branch's prepare, the workflow one held at its entry), so an
 * executor poll or the reminder never trips it.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DeadlineAndArchivalChaosIT extends ChaosSuite {

    private static final String HALT_RULE = "halt-between-background-prepares.btm";
    private static final String MIN_AGE_RULE = "archival-min-age-one-second.btm";
    private static final String FIRST_PREPARE_RULE = "halt-after-first-prepare.btm";
    private static final String MOMENT = "after the first prepare, before the second";
    private static final String ESCALATION_GROUP = "senior-managers";
    private static final Duration RECOVERY_WINDOW = Duration.ofSeconds(120);
    /** The halted node's scan found dead (6 heartbeats of 2 s below) and run again, with room for a busy machine. */
    private static final Duration REFIRE_WINDOW = Duration.ofSeconds(120);
    /** The halted node's heartbeat goes stale after lockstep.recovery.heartbeat-timeout (1 min), with room for a busy machine. */
    private static final Duration ORPHAN_WINDOW = Duration.ofSeconds(150);
    private static final String OTHER_NODE = "chaos-2.tm";

    @BeforeAll
    static void startDatabases() {
        h = new ChaosHarness();
        h.serviceSettings.addAll(List.of(
                ServiceProcess.JOBS_ENABLED + "true",
                "--lockstep.engine.jobs.lock-time=20s",
                "--lockstep.engine.jobs.reset-expired-interval=5s",
                "--lockstep.engine.jobs.acquire-wait=2s",
                "--lockstep.deadlines.steps.managerApproval.timing.remind-after=3s",
                "--lockstep.deadlines.steps.managerApproval.timing.escalate-after=10s",
                // a HIGH-risk application's manager step is rejected 8 s after it opens, with no reminder or escalation before
                // (153); every other scenario's application is LOW
                "--lockstep.deadlines.steps.managerApproval.risk.HIGH.remind-after=",
                "--lockstep.deadlines.steps.managerApproval.risk.HIGH.escalate-after=",
                "--lockstep.deadlines.steps.managerApproval.risk.HIGH.final-after=8s",
                "--lockstep.deadlines.steps.managerApproval.risk.HIGH.final-action=REJECT",
                // reminders and escalations come from the cluster scheduler's deadline scan: look every second; the scan the
                // halted node had picked is dead, and runs again on the restarted one, after 6 missed heartbeats of 2 s
                "--lockstep.scheduler.polling-interval=1s",
                "--lockstep.scheduler.heartbeat-interval=2s",
                "--lockstep.deadlines.scan-interval=1s",
                "--lockstep.archival.enabled=false",
                // 76 and 77 prove the console's path for a node lost for good (what a file-log node leaves): on the
                // database log chaos-2.tm would otherwise take chaos-1.tm's name over once its lease ran out and race the
                // console for the branch (one CI run: 404 RECOVERY_NOT_FOUND at the proposal); the takeover is 150's
                "--lockstep.recovery.takeover-interval=3650d"));
    }

    /**
     * The escalation as both databases hold it, read with plain SQL: the escalation group as a candidate
     * group of the open task (engine, ACT_RU_IDENTITYLINK), in the todo projection and its task_offer rows,
     * the scan's claim on the open task's projection row (escalated_at), the ESCALATED trail entry and the
     * DEADLINE_NOTIFICATION outbox row.
     */
    record Escalation(int engineCandidateLinks, int projectionGroups, int offers, int claims, int trailEntries, int notifications) {

        static final Escalation NONE = new Escalation(0, 0, 0, 0, 0, 0);
        static final Escalation ONCE = new Escalation(1, 1, 1, 1, 1, 1);
    }

    @Test
    @Order(1)
    void haltBetweenThePreparesOfATimerDrivenEscalation() {
        ScenarioRecord s = REPORT.begin(43, "deadline escalation: JVM halted between the prepares",
                MOMENT + " of the XA transaction of a scan-driven escalation (managerApproval's escalation, fired by the deadline"
                        + " scan of the cluster scheduler)",
                "Byteman rule " + HALT_RULE + ": Runtime.halt(1) after the business prepare of the transaction of the thread that"
                        + " entered DeadlineFirings.escalate, its workflow prepare held",
                "Presumed abort: escalated on neither database (" + Escalation.NONE + "), the step's escalation unclaimed; after the"
                        + " restart the scan fires it again and the step is escalated exactly once on both (" + Escalation.ONCE + ").");
        s.useCase = "deadline escalation";

        h.ensureService(Timeouts.SHORT);
        h.arm(HALT_RULE);
        long app;
        try {
            // armed before the step opens: its escalation is due 10 s after, with no request to wait for
            app = submitted(draft(h.client));
            s.rowsBefore.putAll(escalationRows(app));
            haltAndRecover(s, () -> { });
        } finally {
            h.disarm(HALT_RULE);
        }
        s.rowsAfterRecovery.putAll(escalationRows(app));
        Escalation afterRecovery = escalation(app);
        if (afterRecovery.equals(Escalation.ONCE)) {
            // the restarted service's scan fired the escalation again before recovery was read. Exactly once on both still
            // shows the halted firing left nothing.
            s.note("the restarted service had already fired the escalation again when the databases were read: " + afterRecovery);
        } else {
            assertThat(afterRecovery).as("after recovery: escalated on neither database, the escalation unclaimed")
                    .isEqualTo(Escalation.NONE);
        }
        assertThat(h.invariants(s, false).violations()).isEmpty();

        awaitRefired("escalation", () -> escalation(app).trailEntries(), () -> escalationRows(app));
        s.note("the scan fired the escalation again after the restart: " + escalationRows(app));
        assertThat(escalation(app)).as("escalated exactly once on both databases").isEqualTo(Escalation.ONCE);
        s.observedOutcome = "after recovery: " + afterRecovery + "; after the refire: " + escalation(app);
        assertThat(h.invariants(s, false).violations()).isEmpty();
    }

    @Test
    @Order(2)
    void haltBetweenThePreparesOfAHistoryArchivalBatch() {
        ScenarioRecord s = REPORT.begin(44, "history archival batch: JVM halted between the prepares",
                MOMENT + " of the XA transaction of one history archival batch (ACT_HI_* rows deleted through the engine,"
                        + " archived_* rows written)",
                "Byteman rule " + HALT_RULE + ": Runtime.halt(1) after the business prepare of the transaction of the thread that"
                        + " entered HistoryArchival.moveBatch, its workflow prepare held; rule "
                        + MIN_AGE_RULE + " lets the batch take processes ended 1 s ago (startup refuses a min-age below 1d)",
                "Presumed abort: each process's history still whole in ACT_HI_* and absent from the archive; the batch run"
                        + " again moves every process exactly once (archive row counts = the history's counts before).");
        s.useCase = "history archival";

        h.ensureService(Timeouts.SHORT);
        List<String> processes = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            processes.add(withdrawnProcess(h.client));
        }
        Map<String, History> before = new LinkedHashMap<>();
        processes.forEach(p -> before.put(p, history(p)));
        before.forEach((p, counts) -> assertThat(counts.archived()).as(p + " before the batch").isEqualTo(History.Side.NONE));
        before.forEach((p, counts) -> s.rowsBefore.put("process " + p, counts));

        h.arm(MIN_AGE_RULE);
        try {
            h.arm(HALT_RULE);
            try {
                haltAndRecover(s, () -> s.clientAnswer = runBatch().toString());
            } finally {
                h.disarm(HALT_RULE);
            }
            processes.forEach(p -> s.rowsAfterRecovery.put("process " + p, history(p)));
            for (String p : processes) {
                History recovered = history(p);
                assertThat(recovered.inHistory().isEmpty() != recovered.archived().isEmpty())
                        .as(p + " is in exactly one place after recovery: " + recovered).isTrue();
                assertThat(recovered).as(p + ": presumed abort leaves it in the history").isEqualTo(before.get(p));
            }
            assertThat(h.invariants(s, false).violations()).isEmpty();

            Answer again = runBatch();
            s.note("the batch run again after recovery: " + again);
            assertThat(again.status()).as("batch run again: " + again).isEqualTo(200);
        } finally {
            h.disarm(MIN_AGE_RULE);
        }
        List<String> moved = new ArrayList<>();
        for (String p : processes) {
            History after = history(p);
            assertThat(after).as(p + " moved entirely, exactly once")
                    .isEqualTo(new History(before.get(p).inHistory(), History.Side.NONE));
            moved.add(p + ": " + after);
        }
        s.observedOutcome = "rolled back (all " + processes.size() + " processes still in ACT_HI_*, none archived); the batch run"
                + " again moved each exactly once: " + String.join("; ", moved);
        assertThat(h.invariants(s, false).violations()).isEmpty();
    }

    /**
     * Issue 29, item 1: the batch of 44 left in doubt by a node that never comes back, so nothing resolves it
     * and two DBAs do, in the recovery console of another node. The batch writes its audit entry
     * inside its transaction; its prepared branch must not hold a lock that the console's own audited
     * writes wait on (it did: the chain's table lock), or the console cannot resolve what blocks it.
     */
    @Test
    @Order(3)
    void theConsoleResolvesAnArchivalBatchLeftInDoubt() throws SQLException {
        ScenarioRecord s = REPORT.begin(76, "history archival batch left in doubt, resolved in the recovery console",
                MOMENT + " of one history archival batch, whose business branch wrote the batch's audit entry; the halted"
                        + " node never comes back",
                "Byteman rule " + HALT_RULE + " as in 44; another node (" + OTHER_NODE + ") started on the same databases; once the"
                        + " halted node's heartbeat is stale its transaction is an ORPHAN, and dba1 proposes ROLLBACK, dba2 approves,"
                        + " dba1 executes",
                "The console resolves it while the branch is still prepared: EXECUTED, nothing prepared, each process still"
                        + " in ACT_HI_* and not archived, the batch's audit entry never chained, the audit chain intact.");
        s.useCase = "history archival";

        h.ensureService(Timeouts.SHORT);
        String process = withdrawnProcess(h.client);
        History before = history(process);
        s.rowsBefore.put("process " + process, before);
        long auditBefore;
        try (Connection b = h.business.connect()) {
            auditBefore = Long.parseLong(ChaosHarness.one(b, "select coalesce(max(seq), 0) from recovery_audit where seq >= ?", 0));
        }
        h.arm(MIN_AGE_RULE);
        try {
            h.arm(HALT_RULE);
            try {
                s.clientAnswer = runBatch().toString();
                h.service.awaitExit(Duration.ofSeconds(90));
                s.preparedAfterFault = h.prepared();
                s.coordinatorLogAfterFault = h.coordinatorLog();
                h.requireHaltEvidence(s, HALT_RULE, HaltPoint.AFTER_FIRST_PREPARE.name(), MOMENT, 1);
            } finally {
                h.disarm(HALT_RULE);
            }
        } finally {
            h.disarm(MIN_AGE_RULE);
        }
        h.restartAs(s, OTHER_NODE, Timeouts.SHORT);

        long id = resolveByRollback(s, awaitInDoubt(s).get("gtrid").asString(), "node chaos-1 lost for good; the batch is run again");

        s.preparedAfterRecovery = h.prepared();
        assertThat(s.preparedAfterRecovery).as("nothing left prepared").isEmpty();
        History after = history(process);
        s.rowsAfterRecovery.put("process " + process, after);
        assertThat(after).as("rolled back: still in the history, not archived").isEqualTo(before);
        Answer verify = h.client.send("dba1", "GET", "/api/recovery/audit/verify", null, null);
        assertThat(verify.json().get("intact").asBoolean()).as("audit chain: " + verify).isTrue();
        try (Connection b = h.business.connect()) {
            String actions = ChaosHarness.one(b, "select string_agg(action, ',' order by seq) from recovery_audit where seq > ?",
                    auditBefore);
            s.note("audit entries since the batch began: " + actions);
            assertThat(actions).as("the console's entries, none of the rolled-back batch")
                    .contains("PROPOSED", "APPROVED", "EXECUTED").doesNotContain("HISTORY_ARCHIVED");
            assertThat(ChaosHarness.one(b, "select count(*) from recovery_audit_intake where chained_seq is null and id >= ?", 0))
                    .isEqualTo("0");
        }
        s.observedOutcome = "resolution #" + id + " EXECUTED while the batch's branch was prepared; process " + process
                + " still in the history and not archived: " + after;
        assertThat(h.invariants(s, false).violations()).isEmpty();
    }

    /**
     * Issue 29, item 1, the second use case that audits inside its transaction: an admin's termination
     * halted after its business prepare (it wrote the termination's trail row and audit entry there), on a
     * node that never comes back; two DBAs roll it back in the console of another node, and the admin's
     * retry with the same Idempotency-Key then terminates the application exactly once.
     */
    @Test
    @Order(4)
    void theConsoleResolvesATerminationLeftInDoubt() throws SQLException {
        ScenarioRecord s = REPORT.begin(77, "termination left in doubt, resolved in the recovery console",
                "after the business prepare of an admin's termination (application_event and its audit entry written in that"
                        + " branch), the workflow prepare held; the halted node never comes back",
                "Byteman rule " + FIRST_PREPARE_RULE + "; another node (" + OTHER_NODE + ") started on the same databases; once the"
                        + " halted node's heartbeat is stale dba1 proposes ROLLBACK, dba2 approves, dba1 executes",
                "EXECUTED while the branch is prepared, nothing prepared, the application still APPROVING with no trail row and"
                        + " no APPLICATION_TERMINATED audit entry; the retry with the same key terminates it once, audited once.");
        s.useCase = "terminate";

        if (h.service.isAlive()) {
            h.service.stop(); // 76 left the other node running; this scenario's halt needs this node's name
        }
        h.ensureService(Timeouts.SHORT);
        long app = submitted(draft(h.client));
        s.rowsBefore.putAll(h.rows(app));
        String key = LockstepClient.newKey();
        String terminate = "{\"reason\":\"chaos: terminated while its node dies\"}";
        h.arm(FIRST_PREPARE_RULE);
        try {
            s.clientAnswer = h.client.send("erin", "POST", "/api/admin/applications/" + app + "/terminate", terminate, key).toString();
            h.service.awaitExit(Duration.ofSeconds(90));
            s.preparedAfterFault = h.prepared();
            s.coordinatorLogAfterFault = h.coordinatorLog();
            h.requireHaltEvidence(s, FIRST_PREPARE_RULE, HaltPoint.AFTER_FIRST_PREPARE.name(), "after the business prepare of the termination", 1);
        } finally {
            h.disarm(FIRST_PREPARE_RULE);
        }
        h.restartAs(s, OTHER_NODE, Timeouts.SHORT);

        long id = resolveByRollback(s, awaitInDoubt(s).get("gtrid").asString(), "node chaos-1 lost for good; the admin retries");
        s.preparedAfterRecovery = h.prepared();
        assertThat(s.preparedAfterRecovery).as("nothing left prepared").isEmpty();
        s.rowsAfterRecovery.putAll(h.rows(app));
        try (Connection b = h.business.connect()) {
            assertThat(ChaosHarness.one(b, "select approval_status from application where id = ?", app)).isEqualTo("APPROVING");
            assertThat(ChaosHarness.one(b, "select count(*) from application_event where application_id = ?", app)).isEqualTo("0");
            assertThat(terminations(b, app)).as("no audit entry of the rolled-back termination").isEqualTo("0");
        }

        Answer retried = h.client.send("erin", "POST", "/api/admin/applications/" + app + "/terminate", terminate, key);
        s.note("the admin's retry with the same key: " + retried);
        assertThat(retried.status()).as("retry: " + retried).isEqualTo(200);
        try (Connection b = h.business.connect()) {
            assertThat(ChaosHarness.one(b, "select approval_status from application where id = ?", app)).isEqualTo("CANCELED");
            assertThat(terminations(b, app)).as("audited exactly once").isEqualTo("1");
        }
        assertThat(h.client.send("dba1", "GET", "/api/recovery/audit/verify", null, null).json().get("intact").asBoolean()).isTrue();
        s.observedOutcome = "resolution #" + id + " EXECUTED while the termination's branch was prepared; the application stayed"
                + " APPROVING, then the retry terminated it once: " + h.rows(app);
        assertThat(h.invariants(s, false).violations()).isEmpty();
    }

    private static String terminations(Connection business, long app) throws SQLException {
        return ChaosHarness.one(business, "select count(*) from recovery_audit where action = 'APPLICATION_TERMINATED' and detail like ?",
                "application #" + app + " %");
    }

    /** dba1 proposes rolling the whole transaction back, dba2 approves, dba1 executes; the resolution's id. */
    private static long resolveByRollback(ScenarioRecord s, String gtrid, String reason) {
        Answer proposed = h.client.send("dba1", "POST", "/api/recovery/resolutions", "{\"gtrid\":\"" + gtrid
                + "\",\"action\":\"ROLLBACK\",\"reason\":\"" + reason + "\",\"override\":false}", null);
        assertThat(proposed.status()).as("propose: " + proposed).isEqualTo(200);
        long id = proposed.json().get("id").asLong();
        Answer approved = h.client.send("dba2", "POST", "/api/recovery/resolutions/" + id + "/approve", null, null);
        assertThat(approved.status()).as("approve: " + approved).isEqualTo(200);
        Answer executed = h.client.send("dba1", "POST", "/api/recovery/resolutions/" + id + "/execute", null, null);
        s.note("resolution #" + id + ": " + executed);
        assertThat(executed.status()).as("execute: " + executed).isEqualTo(200);
        assertThat(executed.json().get("status").asString()).isEqualTo("EXECUTED");
        return id;
    }

    /** Waits until the monitor lists the halted node's transaction as an orphan (its heartbeat stale), one a DBA may resolve. */
    private static JsonNode awaitInDoubt(ScenarioRecord s) {
        long deadline = System.nanoTime() + ORPHAN_WINDOW.toNanos();
        while (true) {
            Answer listed = h.client.send("dba1", "GET", "/api/recovery/in-doubt?refresh=true", null, null);
            if (listed.succeeded()) {
                for (JsonNode tx : listed.json().path("transactions")) {
                    if ("ORPHAN".equals(tx.path("classification").asString())) {
                        s.note("in doubt: " + tx.path("gtrid").asString() + " " + tx.path("classification").asString());
                        return tx;
                    }
                }
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the monitor did not list the batch's transaction as an orphan within " + ORPHAN_WINDOW
                        + ": " + listed);
            }
            ChaosHarness.sleep(500);
        }
    }

    /**
     * Shared by both scenarios: start the work ({@code trigger}; the escalation starts by itself), wait for
     * the halt, prove it hit one prepared branch of one transaction, restart and wait until recovery has
     * resolved every prepared branch.
     */
    /**
     * Issue 36 item 1: a reconciliation repair is a use case too. Its application's projection drifted (plain SQL),
     * an API-started run finds it and repairs it in one XA transaction (the projection rows written again from the
     * engine, the reconciliation_repair row and the audit entry), and the JVM halts between that transaction's prepares.
     * A countersign application, so that this class's short managerApproval timers never fire in between.
     */
    @Test
    @Order(5)
    void haltBetweenThePreparesOfAReconciliationRepair() throws SQLException {
        ScenarioRecord s = REPORT.begin(129, "reconciliation repair: JVM halted between the prepares",
                MOMENT + " of the XA transaction of a reconciliation repair (PROJECTION_DRIFT: the application's task_projection"
                        + " rows written again from the engine, its reconciliation_repair row and RECONCILIATION_REPAIR audit entry)",
                "The open countersign rows of the application changed to another step by plain SQL, the application aged past"
                        + " the settle time; an API-started run; Byteman rule " + HALT_RULE + ": Runtime.halt(1) after the"
                        + " business prepare of the transaction of the thread that entered SafeRepairs.repair for PROJECTION_DRIFT,"
                        + " its workflow prepare held",
                "Presumed abort: the drift is still there, no repair row and no audit entry; a run after the restart repairs"
                        + " it exactly once (one APPLIED repair row, one audit entry, the rows equal the engine's).");
        s.useCase = "reconciliation repair";

        if (h.service != null) {
            h.service.stop(); // 76 and 77 leave the other node running; the halt's evidence is this harness's node's
        }
        h.ensureService(Timeouts.SHORT);
        long app = RepairedDrift.drifted(h);
        s.rowsBefore.putAll(RepairedDrift.rows(h, app));
        assertThat(RepairedDrift.rows(h, app)).isEqualTo(RepairedDrift.DRIFTED);

        h.arm(HALT_RULE);
        try {
            haltAndRecover(s, () -> s.clientAnswer = RepairedDrift.startRun(h, "INCREMENTAL").toString());
        } finally {
            h.disarm(HALT_RULE);
        }
        s.rowsAfterRecovery.putAll(RepairedDrift.rows(h, app));
        assertThat(RepairedDrift.rows(h, app)).as("presumed abort: the drift is still there, nothing recorded")
                .isEqualTo(RepairedDrift.DRIFTED);

        RepairedDrift.runToTheEnd(h, s, "FULL");
        assertThat(RepairedDrift.rows(h, app)).as("repaired exactly once").isEqualTo(RepairedDrift.REPAIRED_ONCE);
        s.observedOutcome = "rolled back (drift kept, nothing recorded); the run after recovery repaired it once: "
                + RepairedDrift.rows(h, app);
        assertThat(h.invariants(s, false).violations()).isEmpty();
    }

    /**
     * A final deadline as both databases hold it, read with plain SQL: the run's executions in ACT_RU_EXECUTION and its
     * end in ACT_HI_PROCINST, the application's status, the binding's, the step's unclaimed final deadline on its open
     * projection row, the OVERDUE_REJECTED trail entry and the DEADLINE_NOTIFICATION outbox row.
     */
    record FinalDeadline(int executions, String endActivity, String status, String binding, int unclaimed, int trailEntries,
            int notifications) {

        static final FinalDeadline NONE = new FinalDeadline(2, "no row", "APPROVING", "ACTIVE", 1, 0, 0);
        static final FinalDeadline ONCE = new FinalDeadline(0, "rejected", "REJECTED", "REJECTED", 0, 1, 1);
    }

    @Test
    @Order(6)
    void haltBetweenThePreparesOfAScanDrivenFinalDeadline() {
        ScenarioRecord s = REPORT.begin(153, "final deadline: JVM halted between the prepares",
                MOMENT + " of the XA transaction of a scan-driven final deadline (a HIGH-risk application's managerApproval,"
                        + " rejected after 8 s by the deadline scan of the cluster scheduler)",
                "Byteman rule " + HALT_RULE + ": Runtime.halt(1) after the business prepare of the transaction of the thread that"
                        + " entered DeadlineFirings.expire, its workflow prepare held",
                "Presumed abort: the run still waiting at the step and the application APPROVING on both databases ("
                        + FinalDeadline.NONE + "); after the restart the scan fires the final deadline again and the application is"
                        + " rejected exactly once on both (" + FinalDeadline.ONCE + ").");
        s.useCase = "deadline final action";

        h.ensureService(Timeouts.SHORT);
        h.arm(HALT_RULE);
        long app;
        try {
            // armed before the step opens: its final deadline passes 8 s after, with no request to wait for
            app = submitted(draft(h.client, "HIGH"));
            s.rowsBefore.putAll(finalDeadlineRows(app));
            haltAndRecover(s, () -> { });
        } finally {
            h.disarm(HALT_RULE);
        }
        s.rowsAfterRecovery.putAll(finalDeadlineRows(app));
        FinalDeadline afterRecovery = finalDeadline(app);
        if (afterRecovery.equals(FinalDeadline.ONCE)) {
            s.note("the restarted service had already fired the final deadline again when the databases were read: " + afterRecovery);
        } else {
            assertThat(afterRecovery).as("after recovery: the run still at the step, nothing ended on either database")
                    .isEqualTo(FinalDeadline.NONE);
        }
        assertThat(h.invariants(s, false).violations()).isEmpty();

        awaitRefired("final deadline", () -> finalDeadline(app).trailEntries(), () -> finalDeadlineRows(app));
        s.note("the scan fired the final deadline again after the restart: " + finalDeadlineRows(app));
        assertThat(finalDeadline(app)).as("rejected exactly once on both databases").isEqualTo(FinalDeadline.ONCE);
        s.observedOutcome = "after recovery: " + afterRecovery + "; after the refire: " + finalDeadline(app);
        assertThat(h.invariants(s, false).violations()).isEmpty();
    }

    private static FinalDeadline finalDeadline(long app) {
        Map<String, Object> rows = finalDeadlineRows(app);
        return new FinalDeadline(count(rows, "workflow: executions of the run"), String.valueOf(rows.get("workflow: end activity of the run")),
                String.valueOf(rows.get("business: application status")), String.valueOf(rows.get("business: binding status")),
                count(rows, "business: open rows with their final deadline unclaimed"), count(rows, "business: OVERDUE_REJECTED trail entries"),
                count(rows, "business: OVERDUE_REJECTED notifications in the outbox"));
    }

    private static Map<String, Object> finalDeadlineRows(long app) {
        Map<String, Object> rows = new LinkedHashMap<>();
        String id = Long.toString(app);
        try (Connection b = h.business.connect(); Connection w = h.workflow.connect()) {
            rows.put("workflow: executions of the run", ChaosHarness.one(w, "select count(*) from act_ru_execution e"
                    + " join act_ru_execution p on p.id_ = e.proc_inst_id_ where p.business_key_ = ?", id));
            rows.put("workflow: end activity of the run", ChaosHarness.one(w, "select end_act_id_ from act_hi_procinst"
                    + " where business_key_ = ? and end_time_ is not null", id));
            rows.put("business: application status", ChaosHarness.one(b, "select approval_status from application where id = ?", app));
            rows.put("business: binding status", ChaosHarness.one(b, "select binding_status from business_process_binding"
                    + " where business_id = ?", id));
            rows.put("business: open rows with their final deadline unclaimed", ChaosHarness.one(b, "select count(*)"
                    + " from task_projection where application_id = ? and state = 'OPEN' and final_at is not null", app));
            rows.put("business: OVERDUE_REJECTED trail entries", ChaosHarness.one(b,
                    "select count(*) from application_event where application_id = ? and kind = 'OVERDUE_REJECTED'", app));
            rows.put("business: OVERDUE_REJECTED notifications in the outbox", ChaosHarness.one(b, "select count(*) from outbox_event"
                    + " where aggregate_id = ? and event_type = 'DEADLINE_NOTIFICATION' and payload_json like '%\"OVERDUE_REJECTED\"%'", id));
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return rows;
    }

    private static void haltAndRecover(ScenarioRecord s, Runnable trigger) {
        trigger.run();
        h.service.awaitExit(Duration.ofSeconds(90));
        s.preparedAfterFault = h.prepared();
        s.coordinatorLogAfterFault = h.coordinatorLog();
        h.requireHaltEvidence(s, HALT_RULE, HaltPoint.AFTER_FIRST_PREPARE.name(), MOMENT, 1);
        h.disarm(HALT_RULE);
        h.restartAndAwaitNoPrepared(s, Timeouts.SHORT, RECOVERY_WINDOW);
        s.preparedAfterRecovery = h.prepared();
    }

    private static Answer runBatch() {
        return h.client.send("erin", "POST", "/api/admin/history-archival/runs", "{\"batches\":1}", null);
    }

    /** Waits until the restarted service's scan has fired the halted deadline again: its trail entry is there. */
    private static void awaitRefired(String what, IntSupplier trailEntries, Supplier<Map<String, Object>> rows) {
        long deadline = System.nanoTime() + REFIRE_WINDOW.toNanos();
        while (trailEntries.getAsInt() == 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the " + what + " did not fire again within " + REFIRE_WINDOW + ": " + rows.get());
            }
            ChaosHarness.sleep(500);
        }
    }

    private static Escalation escalation(long app) {
        Map<String, Object> rows = escalationRows(app);
        return new Escalation(count(rows, "workflow: escalation group links of the open task"),
                count(rows, "business: task_projection rows offering the group"), count(rows, "business: task_offer rows"),
                count(rows, "business: task_projection rows whose escalation is claimed"), count(rows, "business: ESCALATED trail entries"), count(rows, "business: ESCALATED notifications in the outbox"));
    }

    private static int count(Map<String, Object> rows, String key) {
        return Integer.parseInt(String.valueOf(rows.get(key)));
    }

    private static Map<String, Object> escalationRows(long app) {
        Map<String, Object> rows = new LinkedHashMap<>();
        String id = Long.toString(app);
        try (Connection b = h.business.connect(); Connection w = h.workflow.connect()) {
            rows.put("workflow: escalation group links of the open task", ChaosHarness.one(w, "select count(*) from act_ru_identitylink i"
                    + " join act_ru_task t on t.id_ = i.task_id_ join act_ru_execution e on e.id_ = t.proc_inst_id_"
                    + " where e.business_key_ = ? and i.type_ = 'candidate' and i.group_id_ = '" + ESCALATION_GROUP + "'", id));
            rows.put("business: task_projection rows whose escalation is claimed", ChaosHarness.one(b, "select count(*)"
                    + " from task_projection where application_id = ? and state = 'OPEN' and escalated_at is not null", app));
            rows.put("business: task_projection rows offering the group", ChaosHarness.one(b, "select count(*) from task_projection"
                    + " where application_id = ? and state = 'OPEN' and '" + ESCALATION_GROUP + "' = any(candidate_groups)", app));
            rows.put("business: task_offer rows", ChaosHarness.one(b, "select count(*) from task_offer o join task_projection t"
                    + " on t.task_id = o.task_id where t.application_id = ? and o.group_id = '" + ESCALATION_GROUP + "'", app));
            rows.put("business: ESCALATED trail entries", ChaosHarness.one(b,
                    "select count(*) from application_event where application_id = ? and kind = 'ESCALATED'", app));
            rows.put("business: ESCALATED notifications in the outbox", ChaosHarness.one(b, "select count(*) from outbox_event"
                    + " where aggregate_id = ? and event_type = 'DEADLINE_NOTIFICATION' and payload_json like '%\"ESCALATED\"%'", id));
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return rows;
    }

    /** A process's rows in the engine's history and in the archive, table by table. */
    record History(Side archived, Side inHistory) {

        /** Row counts: process, activities, tasks, variables, identity links. */
        record Side(int processes, int activities, int tasks, int variables, int identityLinks) {

            static final Side NONE = new Side(0, 0, 0, 0, 0);

            boolean isEmpty() {
                return equals(NONE);
            }
        }
    }

    private static History history(String processInstanceId) {
        try (Connection b = h.business.connect(); Connection w = h.workflow.connect()) {
            History.Side inHistory = new History.Side(
                    count(w, "select count(*) from act_hi_procinst where id_ = ?", processInstanceId),
                    count(w, "select count(*) from act_hi_actinst where proc_inst_id_ = ?", processInstanceId),
                    count(w, "select count(*) from act_hi_taskinst where proc_inst_id_ = ?", processInstanceId),
                    count(w, "select count(*) from act_hi_varinst where proc_inst_id_ = ?", processInstanceId),
                    count(w, "with p(id) as (select ?::text) select count(*) from act_hi_identitylink, p where proc_inst_id_ = p.id"
                            + " or task_id_ in (select id_ from act_hi_taskinst where proc_inst_id_ = p.id)", processInstanceId));
            History.Side archived = new History.Side(
                    count(b, "select count(*) from archived_process where process_instance_id = ?", processInstanceId),
                    count(b, "select count(*) from archived_activity where process_instance_id = ?", processInstanceId),
                    count(b, "select count(*) from archived_task where process_instance_id = ?", processInstanceId),
                    count(b, "select count(*) from archived_variable where process_instance_id = ?", processInstanceId),
                    count(b, "select count(*) from archived_identity_link where process_instance_id = ?", processInstanceId));
            return new History(archived, inHistory);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static int count(Connection c, String sql, String parameter) throws SQLException {
        return Integer.parseInt(ChaosHarness.one(c, sql, parameter));
    }

    /** An application submitted and withdrawn at once: an ended process (before its first deadline). */
    private static String withdrawnProcess(LockstepClient client) {
        long app = submitted(draft(client));
        Answer withdrawn = client.send("alice", "POST", "/api/applications/" + app + "/withdraw", "{\"reason\":\"archival chaos\"}",
                LockstepClient.newKey());
        assertThat(withdrawn.status()).as("withdraw: " + withdrawn).isEqualTo(200);
        try (Connection w = h.workflow.connect()) {
            String process = ChaosHarness.one(w, "select id_ from act_hi_procinst where business_key_ = ? and end_time_ is not null",
                    Long.toString(app));
            assertThat(process).as("application " + app + "'s ended process").isNotEqualTo("no row");
            return process;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static long draft(LockstepClient client) {
        return draft(client, "LOW");
    }

    private static long draft(LockstepClient client, String riskLevel) {
        Answer created = client.send("alice", "POST", "/api/applications",
                "{\"title\":\"chaos background work\",\"assetId\":42,\"amount\":1200.50,\"riskLevel\":\"" + riskLevel
                        + "\",\"sensitive\":false}", null);
        assertThat(created.status()).as("create: " + created).isEqualTo(201);
        return created.json().get("id").asLong();
    }

    private static long submitted(long applicationId) {
        Answer submitted = h.client.submit(applicationId, LockstepClient.newKey());
        assertThat(submitted.status()).as("submit: " + submitted).isEqualTo(200);
        return applicationId;
    }
}
