package dev.lockstep.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.chaos.report.ScenarioRecord;
import dev.lockstep.chaos.support.LockstepClient.Answer;
import dev.lockstep.chaos.support.LockstepClient;
import dev.lockstep.chaos.support.ServiceProcess.Timeouts;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The second phase of the submit's two-phase commit beyond the five halts of scenarios 1-5: a crash in
 * the rollback phase (45), a crash after both commits before the coordinator closes its record (46), and a
 * branch that vanishes at commit because someone rolled it back by hand after the commit decision (47),
 * which the transaction manager cannot see and the product's cross-database checks must flag.
 *
 * <p>One service JVM on the SHORT timings serves all three: 45 and 46 halt it and restart it, 47 runs last
 * on the restarted one because it deliberately leaves its application split, which the whole-database
 * invariant check of any later scenario would report.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SecondPhaseChaosIT extends ChaosSuite {

    private static final Duration RECOVERY_WINDOW = Duration.ofSeconds(120);
    private static final String REJECTED_TITLE = "chaos rejected at prepare";

    @BeforeAll
    static void startDatabases() {
        h = new ChaosHarness();
    }

    @Test
    @Order(1)
    @DisplayName("45. JVM halted in the rollback phase (one branch rolled back, the other still prepared) -> recovery rolls the other"
            + " back: nothing of the submit in either DB, nothing prepared, the retry runs once")
    void haltBetweenRollbacks() throws Exception {
        String rule = ChaosHarness.ROLLBACK_PHASE_RULE;
        ScenarioRecord s = REPORT.begin(45, "JVM halted in the rollback phase, after one branch was rolled back, before the other",
                "The business branch voted no at prepare, the workflow branch prepared; Atomikos rolls both back and has"
                        + " called rollback on the business branch (whose transaction PostgreSQL discarded when its PREPARE"
                        + " failed); the workflow branch is still prepared",
                "A deferred constraint trigger the test installs in the business DB (plain SQL, as in scenario 10) fails the"
                        + " submit's PREPARE TRANSACTION there; Byteman rule " + rule + ": the workflow branch's"
                        + " PGXAConnection.rollback held at its entry, Runtime.halt(1) at the entry of the business branch's"
                        + " rollback call, counted per global transaction",
                "Presumed abort: no commit decision was logged, so recovery rolls the prepared workflow branch back; the"
                        + " application stays DRAFT, no process instance, no command record, nothing prepared on either database."
                        + " The client's retry with the same Idempotency-Key finds no stored success: once the cause is gone it runs"
                        + " the submit once (200, not a replay, exactly one process instance).");
        h.ensureService(Timeouts.SHORT);
        long app = h.client.createDraft(REJECTED_TITLE + " s45");
        s.rowsBefore.putAll(h.rows(app));
        String key = LockstepClient.newKey();
        h.haltInRollbackPhase(s, app, REJECTED_TITLE, () -> h.client.submit(app, key));
        assertThat(s.preparedAfterFault).as("the branch left prepared is the workflow one").allMatch(p -> p.startsWith("workflow-db"));

        h.restartAndAwaitNoPrepared(s, Timeouts.SHORT, RECOVERY_WINDOW);
        s.rowsAfterRecovery.putAll(h.rows(app));
        s.preparedAfterRecovery = h.prepared();
        h.expectNothingOfSubmit(s, app);

        Answer retry = h.client.submit(app, key);
        s.note("retry with the same Idempotency-Key after the restart (trigger dropped): " + retry.status()
                + (retry.replayed() ? " (replayed)" : ""));
        assertThat(retry.status()).as("the retry runs the submit: " + retry).isEqualTo(200);
        assertThat(retry.replayed()).as("nothing was stored to replay").isFalse();
        var after = h.rows(app);
        s.observedOutcome = "rolled back on both, then the retry ran once: " + after.get("business: application " + app)
                + ", process instances " + after.get("workflow: act_hi_procinst rows (business key " + app + ")");
        assertThat(after.get("business: application " + app).toString()).contains("approval_status=APPROVING");
        assertThat(after.get("workflow: act_hi_procinst rows (business key " + app + ")")).as("exactly one process").isEqualTo("1");
        assertThat(h.invariants(s, false).violations()).isEmpty();
    }

    @Test
    @Order(2)
    @DisplayName("46. JVM halted after both commits, before the coordinator logs TERMINATED -> both committed, nothing in doubt,"
            + " no alarm, the retry is a replay")
    void haltBeforeTerminatedRecord() {
        String rule = ChaosHarness.BEFORE_TERMINATED_RULE;
        ScenarioRecord s = REPORT.begin(46, "JVM halted after both commits, before the coordinator logs TERMINATED",
                "Both branches committed (two XAResource.commit(xid, false) returned); the coordinator is about to replace its"
                        + " COMMITTING record with TERMINATED",
                "Byteman rule " + rule + ": counts the two-phase commits of each global transaction and calls Runtime.halt(1) at"
                        + " the entry of Lockstep's coordinator log GroupCommitLog.write(TERMINATED) for a transaction that has done two",
                "Nothing is left to decide: both databases hold the submit (APPROVING, process at the manager's approval) and no"
                        + " branch is prepared; after the restart recovery closes the COMMITTING record without any heuristic"
                        + " outcome, the in-doubt view is empty, reconciliation and the mismatch check flag nothing; the client's"
                        + " retry with the same Idempotency-Key is the stored answer (200, Idempotent-Replayed), one process.");
        h.ensureService(Timeouts.SHORT);
        long app = h.client.createDraft("chaos s46");
        s.rowsBefore.putAll(h.rows(app));
        String key = LockstepClient.newKey();
        String transaction = h.haltBeforeTerminatedRecord(s, app, () -> h.client.submit(app, key));
        assertThat(s.rowsAfterFault.get("business: application " + app).toString()).as("committed at the halt")
                .contains("approval_status=APPROVING");
        assertThat(s.rowsAfterFault.get("workflow: running process instances")).as("committed at the halt").isEqualTo("1");

        h.expectClosedWithoutAlarm(s, app, transaction, RECOVERY_WINDOW);
        h.expectSubmitCommitted(s, app);

        Answer retry = h.client.submit(app, key);
        s.note("retry with the same Idempotency-Key after the restart: " + retry.status() + (retry.replayed() ? " (replayed)" : ""));
        assertThat(retry.status()).as("the stored answer: " + retry).isEqualTo(200);
        assertThat(retry.replayed()).as("replayed, not run again").isTrue();
        assertThat(h.rows(app).get("workflow: act_hi_procinst rows (business key " + app + ")")).as("one process").isEqualTo("1");
        s.observedOutcome = "committed on both, no alarm, the retry replayed: " + h.rows(app).get("business: application " + app);
    }

    @Test
    @Order(3)
    @DisplayName("47. A prepared branch rolled back by hand after the commit decision (vanished at commit) -> the split is flagged:"
            + " reconciliation incident, mismatch listed")
    void branchRolledBackByHandAfterCommitDecision() throws Exception {
        String rule = ChaosHarness.VANISH_AT_COMMIT_RULE;
        ScenarioRecord s = REPORT.begin(47, "Workflow branch rolled back by hand (ROLLBACK PREPARED) after the commit decision was logged",
                "Both branches prepared and the COMMITTING decision logged; the workflow branch's XAResource.commit is pending when"
                        + " a DBA or a script rolls that prepared branch back on the workflow database",
                "Byteman rule " + rule + " holds the workflow commit 4 s; meanwhile the test runs ROLLBACK PREPARED of the"
                        + " transaction's workflow branch as the database owner; then the held commit goes on and finds no such"
                        + " prepared transaction",
                "The databases disagree and no transaction manager can mend it (Atomikos takes a branch missing at commit as"
                        + " committed): the business database holds the submit (APPROVING, binding, command record), the workflow"
                        + " database has no process instance. The product must flag it: a reconciliation run opens an incident"
                        + " on the application (which freezes it) and GET /api/recovery/mismatches lists it.");
        h.ensureService(Timeouts.SHORT);
        long app = h.client.createDraft("chaos s47");
        s.rowsBefore.putAll(h.rows(app));
        String key = LockstepClient.newKey();
        Answer answer = h.vanishAtCommit(s, () -> h.client.submit(app, key));
        h.awaitNoPrepared(RECOVERY_WINDOW);
        s.rowsAfterFault.putAll(h.rows(app));
        s.preparedAfterRecovery = h.prepared();

        // the split, read with plain SQL
        assertThat(s.rowsAfterFault.get("business: application " + app).toString()).contains("approval_status=APPROVING");
        assertThat(s.rowsAfterFault.get("business: business_process_binding rows")).isEqualTo("1");
        assertThat(s.rowsAfterFault.get("business: workflow_command rows")).isEqualTo("1");
        assertThat(s.rowsAfterFault.get("workflow: act_hi_procinst rows (business key " + app + ")")).isEqualTo("0");
        assertThat(h.invariants(s, false).violations()).as("the suite's own checker sees the split")
                .anyMatch(v -> v.contains("application " + app + " "));

        ChaosHarness.SplitSignals signals = h.splitSignals(s, app);
        s.rowsAfterRecovery.putAll(h.rows(app));
        s.observedOutcome = "client got " + (answer.answered() ? "HTTP " + answer.status() : "no answer") + "; split: business "
                + s.rowsAfterFault.get("business: application " + app) + ", workflow has no process; flagged: " + signals.incidents()
                + ", mismatches " + signals.mismatches().size() + ", heuristics " + signals.heuristics();
        assertThat(signals.incidents()).as("reconciliation opened an incident on the application")
                .anyMatch(i -> i.contains("(OPEN)"));
        assertThat(signals.mismatches()).as("the mismatch check lists the application").hasSize(1);

        Answer frozen = h.client.send("alice", "POST", "/api/applications/" + app + "/withdraw", "{\"reason\":\"split\"}",
                LockstepClient.newKey());
        s.note("an action on the application while its incident is open: " + frozen);
        assertThat(frozen.status()).as("the incident freezes the application: " + frozen).isEqualTo(409);
        assertThat(frozen.json().path("code").asString()).isEqualTo("APPLICATION_FROZEN");
        Answer retry = h.client.submit(app, key);
        s.note("the client's retry with the same Idempotency-Key: " + retry + (retry.replayed() ? " (replayed)" : ""));
    }
}
