package dev.lockstep.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.lockstep.chaos.report.ScenarioRecord;
import dev.lockstep.chaos.support.LockstepClient.Answer;
import dev.lockstep.chaos.support.LockstepClient;
import dev.lockstep.chaos.support.ServiceProcess.Timeouts;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import tools.jackson.databind.JsonNode;

/**
 * Crash and fault injection at each point of the two-phase commit of "submit an application"
 * (one XA transaction: business row + binding + command record on the business DB, process start
 * on the workflow DB). Each test names its expected outcome first, breaks the service JVM or a
 * database at one point, restarts what broke, and asserts on both databases with plain SQL.
 */
// Execution order (not scenario numbers) is chosen so each scenario finds the service already running
// with the max_timeout it needs (see Timeouts.LONG); the report lists them by number.
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TwoPhaseCommitChaosIT extends ChaosSuite {

    /** Generous bound: a replayed decision waits for its record to expire (LONG: 90 s after the transaction began). */
    private static final Duration RECOVERY_WINDOW = Duration.ofSeconds(240);

    @BeforeAll
    static void startDatabases() throws Exception {
        h = new ChaosHarness();
        h.describe(REPORT);
    }

    @Test
    @Order(1)
    @DisplayName("1. JVM halted before any prepare -> after restart nothing of the submit in either DB, no prepared xact")
    void haltBeforeAnyPrepare() {
        ScenarioRecord s = REPORT.begin(1, "JVM halted before any prepare",
                "XAResource.prepare entered for the first branch; nothing prepared yet",
                "Byteman rule halt-before-first-prepare.btm: Runtime.halt(1) at entry of PGXAConnection.prepare",
                "Both branches roll back: the application stays DRAFT, no process instance, no prepared transaction.");
        ChaosHarness.Crashed crash = h.haltDuringSubmit(s, "halt-before-first-prepare.btm", "s01", null);
        h.requireHaltEvidence(s, HaltPoint.BEFORE_FIRST_PREPARE);

        h.restartAndAwaitNoPrepared(s, Timeouts.LONG, RECOVERY_WINDOW);
        h.expectRolledBack(s, crash.app());
        h.expectRetryMatchesTruth(s, crash.app(), crash.key(), false);
    }

    @Test
    @Order(4)
    @DisplayName("2. JVM halted after the first branch prepared -> recovery rolls both back")
    void haltAfterFirstPrepare() {
        ScenarioRecord s = REPORT.begin(2, "JVM halted after the first prepare, before the second",
                "XAResource.prepare returned for the business branch; the workflow branch, whose prepare Atomikos sent at the"
                        + " same time, is not prepared",
                "Byteman rule halt-after-first-prepare.btm: the workflow branch's PGXAConnection.prepare held at its entry,"
                        + " Runtime.halt(1) at exit of the business branch's",
                "Presumed abort: recovery rolls the prepared branch back; the application stays DRAFT, no process instance.");
        ChaosHarness.Crashed crash = h.haltDuringSubmit(s, "halt-after-first-prepare.btm", "s02", null);
        h.requireHaltEvidence(s, HaltPoint.AFTER_FIRST_PREPARE);

        h.restartAndAwaitNoPrepared(s, Timeouts.SHORT, RECOVERY_WINDOW);
        h.expectRolledBack(s, crash.app());
        h.expectRetryMatchesTruth(s, crash.app(), crash.key(), false);
    }

    @Test
    @Order(5)
    @DisplayName("3. JVM halted after both prepared, before the commit decision is logged -> presumed abort rolls both back")
    void haltBeforeCommitDecisionLogged() {
        ScenarioRecord s = REPORT.begin(3, "JVM halted after both prepares, before the commit decision is logged",
                "Both branches prepared; the coordinator is about to write its COMMITTING record",
                "Byteman rule halt-before-commit-decision.btm: Runtime.halt(1) at entry of the coordinator log's GroupCommitLog.write(COMMITTING)",
                "Presumed abort: with no COMMITTING record, recovery rolls both prepared branches back; application stays DRAFT.");
        ChaosHarness.Crashed crash = h.haltDuringSubmit(s, "halt-before-commit-decision.btm", "s03", null);
        h.requireHaltEvidence(s, HaltPoint.BEFORE_DECISION_LOGGED);
        assertThat(ChaosHarness.recordsOfHaltedTransaction(s)).as("no commit decision in the coordinator log").noneMatch(l -> l.contains("|COMMITTING|"));

        h.restartAndAwaitNoPrepared(s, Timeouts.SHORT, RECOVERY_WINDOW);
        h.expectRolledBack(s, crash.app());
        h.expectRetryMatchesTruth(s, crash.app(), crash.key(), false);
    }

    @Test
    @Order(2)
    @DisplayName("4. JVM halted after the commit decision is logged, before any commit -> recovery commits both")
    void haltAfterCommitDecisionLogged() {
        ScenarioRecord s = REPORT.begin(4, "JVM halted after the commit decision is logged, before any commit",
                "COMMITTING record written to the coordinator log; no branch committed yet",
                "Byteman rule halt-after-commit-decision.btm: Runtime.halt(1) at exit of the coordinator log's GroupCommitLog.write(COMMITTING), after its force",
                "Recovery replays the logged decision: both branches commit; application APPROVING with its process running.");
        // the decision must outlive the restart: the crashing JVM runs with LONG timeouts (see Timeouts)
        ChaosHarness.Crashed crash = h.haltDuringSubmit(s, "halt-after-commit-decision.btm", "s04", Timeouts.LONG);
        h.requireHaltEvidence(s, HaltPoint.AFTER_DECISION_LOGGED);
        assertThat(ChaosHarness.recordsOfHaltedTransaction(s)).as("the commit decision is in the coordinator log").anyMatch(l -> l.contains("|COMMITTING|"));

        h.restartAndAwaitNoPrepared(s, Timeouts.LONG, RECOVERY_WINDOW);
        h.expectCommitted(s, crash.app());
        h.expectRetryMatchesTruth(s, crash.app(), crash.key(), true);
    }

    @Test
    @Order(3)
    @DisplayName("5. JVM halted after the first commit, before the second -> recovery commits the second")
    void haltBetweenCommits() {
        ScenarioRecord s = REPORT.begin(5, "JVM halted after the first commit, before the second",
                "XAResource.commit returned for the business branch; the workflow branch, whose commit Atomikos sent at the"
                        + " same time, is still prepared",
                "Byteman rule halt-after-first-commit.btm: the workflow branch's PGXAConnection.commit(xid, false) held at its"
                        + " entry, Runtime.halt(1) at exit of the business branch's",
                "Recovery commits the remaining branch: both committed; application APPROVING with its process running; the"
                        + " product flags no split (no reconciliation incident, not listed by the mismatch check).");
        ChaosHarness.Crashed crash = h.haltDuringSubmit(s, "halt-after-first-commit.btm", "s05", Timeouts.LONG);
        h.requireHaltEvidence(s, HaltPoint.BETWEEN_COMMITS);

        h.restartAndAwaitNoPrepared(s, Timeouts.LONG, RECOVERY_WINDOW);
        h.expectCommitted(s, crash.app());
        expectNoSplitAlarm(s, crash.app());
        h.expectRetryMatchesTruth(s, crash.app(), crash.key(), true);
    }

    @Test
    @Order(6)
    @DisplayName("6. Business PostgreSQL killed during prepare -> global rollback, the workflow branch does not stay prepared")
    void businessDatabaseKilledDuringPrepare() throws Exception {
        ScenarioRecord s = REPORT.begin(6, "Business PostgreSQL killed (immediate stop) during prepare",
                "The business branch's XAResource.prepare is pending when its PostgreSQL server dies; the workflow branch,"
                        + " prepared at the same time, is prepared",
                "Byteman rule pause-before-business-prepare.btm holds the prepare 4 s; meanwhile the test stops the business"
                        + " server in immediate mode (SIGQUIT to the postmaster), then starts it again on the same data directory",
                "Global rollback: the client gets an error, the prepared workflow branch is rolled back (not left prepared),"
                        + " the application stays DRAFT, no process instance.");
        assumeFalse(h.business.isExternal(), "the test cannot stop an external database server");
        // Before 425dc03 the client got 200 here for a rolled-back submit (docs/compliance.md, findings)
        h.ensureService();
        long app = h.client.createDraft("chaos s06");
        s.rowsBefore.putAll(h.rows(app));
        String rule = "pause-before-business-prepare.btm";
        String key = LockstepClient.newKey();
        h.arm(rule);
        try {
            CompletableFuture<Answer> submit = CompletableFuture.supplyAsync(() -> h.client.submit(app, key));
            h.awaitReached(rule, Duration.ofSeconds(60));
            // the business branch's prepare is pending; the workflow branch, prepared at the same time, is prepared
            h.requirePauseEvidence(s, rule, 0, 1);
            h.business.crash();
            s.faultFired += "\n" + h.requireDown(h.business, "business");
            Answer answer = submit.get(120, TimeUnit.SECONDS);
            s.clientAnswer = answer.toString();
            s.preparedAfterFault = h.prepared();
            s.rowsAfterFault.putAll(h.rows(app));
            long t0 = System.nanoTime();
            h.business.start();
            h.awaitNoPrepared(RECOVERY_WINDOW);
            s.timeToRecoveryMillis = Duration.ofNanos(System.nanoTime() - t0).toMillis();
            s.rowsAfterRecovery.putAll(h.rows(app));
            s.preparedAfterRecovery = h.prepared();
            s.observedOutcome = "client got " + (answer.answered() ? "HTTP " + answer.status() : "no answer") + "; "
                    + s.rowsAfterRecovery.get("business: application " + app);
            ChaosHarness.expectClearError(answer);
            h.expectNothingOfSubmit(s, app);
            h.expectRetryMatchesTruth(s, app, key, false);
        } finally {
            h.disarm(rule);
            h.service.stop(); // its pool held connections to the dead server: the next scenario starts afresh
        }
    }

    @Test
    @Order(7)
    @DisplayName("7. Workflow PostgreSQL killed after prepare, before commit -> once it is back the commit completes, both committed")
    void workflowDatabaseKilledBeforeCommit() throws Exception {
        ScenarioRecord s = REPORT.begin(7, "Workflow PostgreSQL killed after prepare, before its commit",
                "Both branches prepared, the commit decision logged; the workflow branch's XAResource.commit is pending when"
                        + " its PostgreSQL server dies",
                "Byteman rule pause-before-workflow-commit.btm holds the workflow commit 4 s; meanwhile the test stops the"
                        + " workflow server in immediate mode and starts it again 2 s later on the same data directory",
                "The logged decision wins: once the workflow server is back, recovery commits its prepared branch; both"
                        + " committed (application APPROVING, process running); the client was not told the submit failed.");
        assumeFalse(h.workflow.isExternal(), "the test cannot stop an external database server");
        faultDuringWorkflowCommit(s, "s07", false, () -> {
            h.workflow.crash();
            s.faultFired += "\n" + h.requireDown(h.workflow, "workflow");
        }, () -> {
            ChaosHarness.sleep(2000);
            h.workflow.start();
        });
    }

    @Test
    @Order(8)
    @DisplayName("8. Workflow branch's backend terminated during commit -> resolved, both committed")
    void workflowBackendTerminatedDuringCommit() throws Exception {
        ScenarioRecord s = REPORT.begin(8, "Workflow branch's backend terminated (pg_terminate_backend) during commit",
                "Both branches prepared, the commit decision logged; the workflow branch's XAResource.commit is pending when"
                        + " the server terminates the service's backends on the workflow database",
                "Byteman rule pause-before-workflow-commit.btm holds the workflow commit 4 s; meanwhile the test runs"
                        + " pg_terminate_backend on every connection of the service to the workflow database",
                "Resolved: the prepared workflow branch survives its session; the transaction manager commits it (at once"
                        + " or by recovery); both committed, application APPROVING with its process running.");
        faultDuringWorkflowCommit(s, "s08", false, () -> {
            try (Connection c = h.workflow.connect(); Statement st = c.createStatement()) {
                var r = st.executeQuery("select count(pg_terminate_backend(pid)) from pg_stat_activity"
                        + " where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'");
                r.next();
                int terminated = r.getInt(1);
                s.faultFired += "\npg_terminate_backend ended " + terminated + " backend(s) of the service on the workflow database";
                assertThat(terminated).as("backends of the service terminated on the workflow database").isPositive();
            } catch (java.sql.SQLException e) {
                throw new IllegalStateException(e);
            }
        }, () -> { });
    }

    @Test
    @Order(9)
    @DisplayName("9. Network to the workflow database cut during commit, healed later -> resolved after heal, both committed")
    void networkCutDuringCommit() throws Exception {
        ScenarioRecord s = REPORT.begin(9, "Network to the workflow database cut during commit, healed later",
                "Both branches prepared, the commit decision logged; the workflow branch's XAResource.commit is pending when"
                        + " every TCP connection between the service and the workflow database is dropped",
                "The service reaches the workflow database through a TCP proxy in the test; Byteman rule"
                        + " pause-before-workflow-commit.btm holds the workflow commit 4 s while the proxy drops all connections"
                        + " and refuses new ones; 5 s later the proxy lets connections through again",
                "Resolved after the heal: recovery commits the prepared workflow branch; both committed, application"
                        + " APPROVING with its process running; a commit retry that meets XAER_NOTA (the branch had committed) raises"
                        + " no split alarm (no reconciliation incident, not listed by the mismatch check).");
        assumeFalse(h.workflowProxy == null, "an external workflow database is reached without the test's proxy");
        faultDuringWorkflowCommit(s, "s09", true, () -> {
            int dropped = h.workflowProxy.cut();
            s.faultFired += "\nnetwork cut: the proxy dropped " + dropped + " open connection(s) to the workflow database and refuses new ones";
            assertThat(dropped).as("open connections the cut dropped (the held commit's among them)").isPositive();
        }, () -> {
            ChaosHarness.sleep(5000);
            h.workflowProxy.heal();
            s.note("network healed");
        });
    }

    /**
     * Holds the workflow commit, applies the fault, heals, then expects both branches committed (and, with
     * {@code noSplitAlarm}, that the product flags no split).
     */
    private void faultDuringWorkflowCommit(ScenarioRecord s, String label, boolean noSplitAlarm, Runnable fault, Runnable heal)
            throws Exception {
        h.ensureService(Timeouts.SHORT); // the running JVM replays its decision once the record expires

        long app = h.client.createDraft("chaos " + label);
        s.rowsBefore.putAll(h.rows(app));
        String rule = "pause-before-workflow-commit.btm";
        String key = LockstepClient.newKey();
        h.arm(rule);
        try {
            CompletableFuture<Answer> submit = CompletableFuture.supplyAsync(() -> h.client.submit(app, key));
            h.awaitReached(rule, Duration.ofSeconds(60));
            // the decision is logged and the business branch, committed at the same time, committed: only the workflow one is prepared
            h.requirePauseEvidence(s, rule, 0, 1);
            fault.run();
            s.preparedAfterFault = h.prepared();
            s.coordinatorLogAfterFault = h.coordinatorLog();
            s.rowsAfterFault.putAll(h.rows(app));
            long t0 = System.nanoTime();
            heal.run();
            Answer answer = submit.get(120, TimeUnit.SECONDS);
            s.clientAnswer = answer.toString();
            h.awaitNoPrepared(RECOVERY_WINDOW);
            s.timeToRecoveryMillis = Duration.ofNanos(System.nanoTime() - t0).toMillis();
            h.expectCommitted(s, app);
            s.observedOutcome = "client got " + (answer.answered() ? "HTTP " + answer.status() : "no answer") + "; " + s.observedOutcome;
            // a 4xx would tell the client its submit was refused although it committed
            assertThat(answer.status() < 400 || answer.status() >= 500).as("the client's answer does not claim a refusal").isTrue();
            if (noSplitAlarm) {
                expectNoSplitAlarm(s, app);
            }
            h.expectRetryMatchesTruth(s, app, key, true);
        } finally {
            h.disarm(rule);
            h.service.stop(); // its pool held connections that died: the next scenario starts afresh
        }
    }

    @Test
    @Order(11)
    @DisplayName("10. A branch rejected at prepare (deferred constraint) -> both rolled back, client gets an error")
    void branchRejectedAtPrepare() throws Exception {
        ScenarioRecord s = REPORT.begin(10, "Business branch rejected at prepare by a deferred constraint",
                "PREPARE TRANSACTION on the business DB fails (a DEFERRABLE INITIALLY DEFERRED constraint trigger fires there)",
                "A constraint trigger the test installs in the business DB (plain SQL, as a DBA could) rejects the submit's update at prepare",
                "The whole transaction rolls back: the client gets an error status, application stays DRAFT, no process instance, nothing prepared.");
        h.rejectAtPrepare("chaos reject at prepare");
        long app;
        String key = LockstepClient.newKey();
        try {
            h.ensureService();
            app = h.client.createDraft("chaos reject at prepare");
            s.rowsBefore.putAll(h.rows(app));
            Answer answer = h.client.submit(app, key);
            s.clientAnswer = answer.toString();
            long rejections = h.rejectionsAtPrepare();
            s.faultFired = "the deferred constraint trigger refused " + rejections + " PREPARE TRANSACTION on the business database"
                    + " (counted by a sequence, which the rollback does not undo)";
            assertThat(rejections).as("the trigger fired at prepare").isEqualTo(1);
            s.rowsAfterRecovery.putAll(h.rows(app));
            s.preparedAfterRecovery = h.prepared();
            s.observedOutcome = "client got " + (answer.answered() ? "HTTP " + answer.status() : "no answer") + "; "
                    + s.rowsAfterRecovery.get("business: application " + app);
            ChaosHarness.expectClearError(answer);
            assertThat(h.service.isAlive()).as("the service keeps running").isTrue();
            h.expectNothingOfSubmit(s, app);
        } finally {
            h.stopRejectingAtPrepare();
        }
        h.expectRetryMatchesTruth(s, app, key, false); // the DBA dropped the trigger: the retry runs afresh
    }

    @Test
    @Order(12)
    @DisplayName("11. A transaction exceeding its JTA timeout -> both rolled back")
    void transactionTimeout() {
        ScenarioRecord s = REPORT.begin(11, "Transaction exceeds its JTA timeout",
                "The submit's XA transaction stays active 12 s, past its 8 s JTA timeout, before it reaches commit",
                "Byteman rule stall-past-timeout.btm: Thread.sleep(12000) at entry of Activiti StartProcessInstanceCmd.execute;"
                        + " the service runs with lockstep.tm.default-timeout=8s",
                "The transaction manager rolls the transaction back: client gets an error, application stays DRAFT, no process instance, nothing prepared.");
        h.ensureService(Timeouts.SHORT); // an 8 s transaction timeout
        long app = h.client.createDraft("chaos timeout");
        s.rowsBefore.putAll(h.rows(app));
        int timeoutsBefore = h.serviceLogLines("has timed out").size();
        h.arm("stall-past-timeout.btm");
        String key = LockstepClient.newKey();
        Answer answer;
        try {
            answer = h.client.submit(app, key);
        } finally {
            h.disarm("stall-past-timeout.btm");
        }
        s.clientAnswer = answer.toString();
        List<String> timedOut = h.serviceLogLines("has timed out");
        List<String> thisTimeout = timedOut.subList(Math.min(timeoutsBefore, timedOut.size()), timedOut.size());
        s.faultFired = h.faultTrace() + "\n" + String.join("\n", thisTimeout);
        assertThat(h.faultTrace()).as("the stall rule fired").startsWith("CHAOS stalling");
        assertThat(thisTimeout).as("the transaction manager timed out a transaction of this node during the submit (service log)")
                .anyMatch(line -> line.contains(ChaosHarness.TM_NAME));
        s.rowsAfterRecovery.putAll(h.rows(app));
        s.preparedAfterRecovery = h.prepared();
        s.observedOutcome = "client got " + (answer.answered() ? "HTTP " + answer.status() : "no answer") + "; "
                + s.rowsAfterRecovery.get("business: application " + app);
        ChaosHarness.expectClearError(answer);
        h.expectNothingOfSubmit(s, app);
        h.expectRetryMatchesTruth(s, app, key, false);
    }

    @Test
    @Order(13)
    @DisplayName("12. Coordinator log lost while both branches are prepared -> branches stay prepared for a DBA, none resolved automatically")
    void coordinatorLogLost() throws Exception {
        ScenarioRecord s = REPORT.begin(12, "Coordinator log lost while both branches are prepared",
                "Both branches prepared and the COMMITTING decision logged; then the node's Atomikos log directory is destroyed"
                        + " and a replacement node (tm chaos-2.tm) takes over",
                "Byteman rule halt-after-commit-decision.btm, then the test deletes <home>/atomikos before the restart",
                "No automatic step resolves the branches: both stay in pg_prepared_xacts past the recovery window (one per"
                        + " database, same gtrid), nothing is half committed; a DBA then resolves them and the databases agree.");
        ChaosHarness.Crashed crash = h.haltDuringSubmit(s, HaltPoint.AFTER_DECISION_LOGGED.rule, "s12", null);
        h.requireHaltEvidence(s, HaltPoint.AFTER_DECISION_LOGGED); // both branches of one transaction prepared
        ChaosHarness.deleteTree(h.service.home().resolve("atomikos"));
        s.note("deleted " + h.service.home().resolve("atomikos") + " (the coordinator log)");

        h.service.start("chaos-2.tm", h.bytemanJar, h.rules(), Timeouts.SHORT);
        try {
            resolveAsDba(s, crash.app());
            h.expectRetryMatchesTruth(s, crash.app(), crash.key(), true);
        } finally {
            h.service.stop(); // the next scenario starts as chaos-1.tm again
        }
    }

    private void resolveAsDba(ScenarioRecord s, long app) throws Exception {
        // longer than max-timeout (10 s) plus several recovery passes (every 2 s): any automatic resolution would have happened
        ChaosHarness.sleep(16_000);
        var stillPrepared = h.prepared();
        s.rowsAfterRecovery.putAll(h.rows(app));
        s.preparedAfterRecovery = stillPrepared;
        s.observedOutcome = stillPrepared.size() + " branch(es) still prepared after 16 s; "
                + s.rowsAfterRecovery.get("business: application " + app);
        assertThat(h.preparedCount(h.business)).as("business branch left prepared for a DBA").isEqualTo(1);
        assertThat(h.preparedCount(h.workflow)).as("workflow branch left prepared for a DBA").isEqualTo(1);
        assertThat(stillPrepared.get(0).replaceAll(".*gtrid ([^,]+),.*", "$1"))
                .as("both branches belong to one global transaction")
                .isEqualTo(stillPrepared.get(1).replaceAll(".*gtrid ([^,]+),.*", "$1"));
        assertThat(s.rowsAfterRecovery.get("business: application " + app).toString()).contains("approval_status=DRAFT");
        assertThat(s.rowsAfterRecovery.get("workflow: act_hi_procinst rows (business key " + app + ")")).isEqualTo("0");
        assertThat(h.invariants(s, true).consistent()).as("nothing is half committed: " + s.invariantViolations).isTrue();

        // the DBA's resolution, the product's way: the recovery console's four-eyes API over HTTP. The lost decision
        // was commit, so dba1 proposes COMMIT of this one global transaction, dba2 approves, the resolution executes.
        String gtrid = stillPrepared.get(0).replaceAll(".*gtrid ([^,]+),.*", "$1");
        Answer inDoubt = h.client.send("dba1", "GET", "/api/recovery/in-doubt?refresh=true", null, null);
        assertThat(inDoubt.status()).as("the console's scan: " + inDoubt).isEqualTo(200);
        JsonNode seen = null;
        for (JsonNode tx : inDoubt.json().path("transactions")) {
            if (gtrid.equals(tx.path("gtrid").asString())) {
                seen = tx;
            }
        }
        assertThat(seen).as("the console lists global transaction " + gtrid + ": " + inDoubt.body()).isNotNull();
        assertThat(seen.path("branches")).as("both prepared branches, one per database").hasSize(2);
        s.note("the console showed " + gtrid + ": class " + seen.path("classification").asString() + ", recommendation "
                + seen.path("recommendation").asString() + ", coordinator state " + seen.path("coordinatorState").asString());
        Answer proposed = h.client.send("dba1", "POST", "/api/recovery/resolutions", """
                {"gtrid": "%s", "action": "COMMIT", "reason": "coordinator log of chaos-1.tm lost after COMMITTING was logged; \
                both branches prepared, so the decision was commit"}""".formatted(gtrid), null);
        assertThat(proposed.status()).as("dba1 proposes: " + proposed).isEqualTo(200);
        long resolution = proposed.json().path("id").asLong();
        Answer sameEyes = h.client.send("dba1", "POST", "/api/recovery/resolutions/" + resolution + "/approve", null, null);
        assertThat(sameEyes.status()).as("four eyes: the proposer cannot approve: " + sameEyes).isEqualTo(403);
        assertThat(sameEyes.json().path("code").asString()).isEqualTo("RECOVERY_SAME_APPROVER");
        Answer approved = h.client.send("dba2", "POST", "/api/recovery/resolutions/" + resolution + "/approve", null, null);
        assertThat(approved.status()).as("dba2 approves: " + approved).isEqualTo(200);
        Answer executed = h.client.send("dba2", "POST", "/api/recovery/resolutions/" + resolution + "/execute", null, null);
        assertThat(executed.status()).as("the resolution executes: " + executed).isEqualTo(200);
        assertThat(executed.json().path("status").asString()).as(executed.body()).isEqualTo("EXECUTED");
        s.note("resolution #" + resolution + ": proposed by dba1, refused to dba1 as approver (RECOVERY_SAME_APPROVER), approved"
                + " by dba2, executed: " + executed.json().path("branches").size() + " branch(es) committed");
        assertThat(h.preparedCount(h.business) + h.preparedCount(h.workflow)).as("no branch left prepared").isZero();
        Answer verified = h.client.send("dba1", "GET", "/api/recovery/audit/verify", null, null);
        assertThat(verified.status()).isEqualTo(200);
        assertThat(verified.json().path("intact").asBoolean()).as("the audit chain verifies: " + verified.body()).isTrue();
        Answer trail = h.client.send("dba1", "GET", "/api/recovery/audit?limit=20", null, null);
        assertThat(trail.body()).as("the audit trail holds each step of the resolution")
                .contains("\"PROPOSED\"").contains("\"APPROVED\"").contains(gtrid);
        s.note("audit chain verified: " + verified.body());
        s.note("after the DBA: " + h.rows(app));
        assertThat(h.invariants(s, false).consistent()).as("consistent after the DBA's resolution: " + s.invariantViolations).isTrue();
    }

    @Test
    @Order(10)
    @DisplayName("13. Crash under load (16 clients, kill -9 at a random moment) -> every acknowledged request fully in both DBs,"
            + " every refused one absent, no duplicate process, no prepared xact left")
    void crashUnderLoad() throws Exception {
        ScenarioRecord s = REPORT.begin(13, "Crash under load: 16 concurrent clients, service killed -9 at a random moment",
                "Any point: create, submit and approve requests are in flight on 16 connections when the JVM gets SIGKILL",
                "Process.destroyForcibly() (SIGKILL) on the service JVM a random 0-4 s after the clients had 32 acknowledged"
                        + " requests; restart on the same Atomikos log",
                "Every request the clients saw succeed is fully in both databases; every request answered with an error is"
                        + " entirely absent; requests cut off without an answer are all-or-nothing; no duplicate process per"
                        + " lifecycle; no prepared transaction after the recovery window.");
        s.useCase = "mixed load";
        // decisions logged before the kill must outlive the restart; the restart then presumes abort quickly
        h.ensureService(Timeouts.LONG);
        // a cold JVM answers slowly: one full cycle first, so the kill lands in steady load
        long warmUp = h.client.createDraft("warm-up");
        String warmTask = h.client.submit(warmUp, LockstepClient.newKey()).succeeded() ? h.client.openTask(warmUp, "managerApproval") : null;
        if (warmTask != null) {
            h.client.complete("bob", warmTask, LockstepClient.newKey());
        }
        long seed = System.nanoTime();
        long killAfterMillis = new Random(seed).nextInt(4000);
        LoadClients load = new LoadClients(h.client, 16);
        load.start();
        load.awaitSucceeded(32, Duration.ofSeconds(120));
        ChaosHarness.sleep(killAfterMillis);
        s.note("random seed " + seed + ": kill -9 " + killAfterMillis + " ms after the clients had 32 acknowledged requests");
        h.service.kill9();
        load.stopAndJoin();
        s.clientAnswer = load.summary();
        s.rowsAfterFault.put("all databases", h.invariants(s, true).counts());
        s.preparedAfterFault = h.prepared();
        s.coordinatorLogAfterFault = h.coordinatorLog();

        h.restartAndAwaitNoPrepared(s, Timeouts.SHORT, RECOVERY_WINDOW);
        s.preparedAfterRecovery = h.prepared();
        List<String> missing = new ArrayList<>();
        List<String> leaked = new ArrayList<>();
        int cutCommitted = 0;
        int cutAbsent = 0;
        int cutCreates = 0;
        try (Connection b = h.business.connect()) {
            for (LoadClients.Request r : load.requests()) {
                LoadClients.Held held = LoadClients.held(b, r);
                if (held == LoadClients.Held.PART || r.answer().succeeded() && held != LoadClients.Held.ALL) {
                    missing.add(held + ": " + r);
                } else if (r.answer().answered() && !r.answer().succeeded() && held != LoadClients.Held.NONE) {
                    leaked.add(r.toString());
                } else if (!r.answer().answered() && r.kind() == LoadClients.Kind.CREATE) {
                    cutCreates++;
                } else if (!r.answer().answered()) {
                    if (held == LoadClients.Held.ALL) {
                        cutCommitted++;
                    } else {
                        cutAbsent++;
                    }
                }
            }
        }
        s.rowsAfterRecovery.put("all databases", h.invariants(s, false).counts());
        s.faultFired = "SIGKILL " + killAfterMillis + " ms after the 32nd acknowledged request (seed " + seed + "); requests in flight"
                + " that never got an answer: " + (cutCommitted + cutAbsent) + " submits and decisions (" + cutCommitted + " committed, "
                + cutAbsent + " absent), " + cutCreates + " creates; at the kill " + s.preparedAfterFault.size() + " branch(es) prepared, "
                + s.coordinatorLogAfterFault.size() + " pending coordinator record(s)";
        assertThat(cutCommitted + cutAbsent + cutCreates).as("the kill cut requests in flight").isPositive();
        s.observedOutcome = load.succeeded() + " acknowledged requests checked: " + missing.size() + " missing; "
                + leaked.size() + " refused but present; invariants " + (s.invariantViolations.isEmpty() ? "hold" : "violated");
        assertThat(missing).as("acknowledged but missing, or held in part").isEmpty();
        assertThat(leaked).as("refused but present").isEmpty();
        assertThat(s.preparedAfterRecovery).isEmpty();
        assertThat(s.invariantViolations).isEmpty();
        expectRetriesMatchTruth(s, load);
    }

    /**
     * The clients whose requests the kill cut off send them again with the same Idempotency-Key (issue 14,
     * item 5): each must succeed, replayed exactly when what the databases hold says it had committed, and the
     * databases must stay consistent (no second application, process or decision).
     */
    private void expectRetriesMatchTruth(ScenarioRecord s, LoadClients load) throws Exception {
        Map<LoadClients.Request, Boolean> committedBeforeRetry = new LinkedHashMap<>();
        try (Connection b = h.business.connect()) {
            for (LoadClients.Request r : load.requests()) {
                if (!r.answer().answered()) {
                    committedBeforeRetry.put(r, LoadClients.held(b, r) == LoadClients.Held.ALL);
                }
            }
        }
        List<String> wrong = new ArrayList<>();
        int replayed = 0;
        for (Map.Entry<LoadClients.Request, Boolean> cut : committedBeforeRetry.entrySet()) {
            Answer retry = h.followingRetryAfter(s, () -> cut.getKey().sendAgain(h.client));
            if (!retry.succeeded() || retry.replayed() != cut.getValue()) {
                wrong.add(cut.getKey().kind() + " key " + cut.getKey().key() + (cut.getValue() ? " (had committed)" : " (had not)")
                        + " -> " + retry);
            }
            replayed += retry.replayed() ? 1 : 0;
        }
        s.note("the " + committedBeforeRetry.size() + " cut-off requests sent again with their keys: " + replayed + " replayed, "
                + (committedBeforeRetry.size() - replayed) + " ran afresh, " + wrong.size() + " wrong");
        assertThat(wrong).as("a retry is answered 2xx, replayed exactly when its request had committed").isEmpty();
        assertThat(h.invariants(s, false).consistent()).as("consistent after the retries: " + s.invariantViolations).isTrue();
    }

    /**
     * Both branches committed, so the product must not report a split: recovery may have retried a commit
     * that met XAER_NOTA (the branch had committed already), which Atomikos takes as committed - rightly here,
     * unlike scenario 47's branch rolled back by hand (SecondPhaseChaosIT).
     */
    private void expectNoSplitAlarm(ScenarioRecord s, long app) {
        s.note("service log lines where Atomikos met XAER_NOTA at commit: " + h.serviceLogLines("already committed in resource"));
        ChaosHarness.SplitSignals signals = h.splitSignals(s, app);
        assertThat(signals.incidents()).as("reconciliation incidents about application " + app).isEmpty();
        assertThat(signals.mismatches()).as("mismatches listed for application " + app).isEmpty();
    }
}
