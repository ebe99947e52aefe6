package dev.lockstep.chaos;

import static dev.lockstep.chaos.UseCaseCrashChaosIT.state;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.chaos.UseCaseCrashChaosIT.CrashedUseCase;
import dev.lockstep.chaos.UseCaseCrashChaosIT.State;
import dev.lockstep.chaos.UseCaseCrashChaosIT.Subject;
import dev.lockstep.chaos.report.ScenarioRecord;
import dev.lockstep.chaos.support.LockstepClient.Answer;
import dev.lockstep.chaos.support.LockstepClient;
import dev.lockstep.chaos.support.ServiceProcess.Timeouts;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Scenarios 120-123, the negative controls: what XA buys, shown by taking it away. The service runs with
 * {@code lockstep.tm.transaction-mode=LOCAL} (accepted only under the Spring profile {@code chaos}): each database
 * commits on its own, one local commit after the other, as teams without XA do (best-effort one-phase). The JVM is
 * halted between the two local commits of submit, the final decision and the countersign vote, the crash that the
 * XA scenarios 5, 18 and 33 make between the two commits of a two-phase commit; and a network blackhole to the
 * workflow database at its local COMMIT of a submit (123), the blackhole that scenario 54 makes at COMMIT PREPARED. Under XA those end consistent;
 * here the databases must split, the business holding the action and the engine not, and reconciliation's rule
 * must name the split. A control that did not split would fail: it would show nothing about XA.
 *
 * <p>CI runs the halts of submit and the final decision; {@code -Dchaos.matrix=full} adds the countersign vote (its XA
 * twin, 33, also runs only there) and the blackhole. Each control's outcome stands in the report beside its twin's (docs/chaos.md).
 */
class NegativeControlChaosIT extends ChaosSuite {

    static final String RULE = "halt-between-local-commits.btm";
    static final String HALT_POINT = "BETWEEN_LOCAL_COMMITS";
    private static final Duration RECOVERY_WINDOW = Duration.ofSeconds(60);

    @BeforeAll
    static void startDatabases() throws IOException {
        h = new ChaosHarness();
        h.serviceSettings.add("--spring.profiles.active=chaos");
        h.serviceSettings.add("--lockstep.tm.transaction-mode=LOCAL");
        // the blackhole control (123) waits only as long as these bound it, as its XA twin (54) does
        NetworkBlackholeChaosIT.boundTheWaits(h);
    }

    /** A crashed action without XA: its XA twin, the split it must leave and the rule that must name it. */
    enum Control {
        SUBMIT(120, 5, "submit", "APPROVING_PROCESS_ENDED", State.of("APPROVING"), null),
        FINAL_DECISION(121, 18, "final decision", "DECIDED_PROCESS_ACTIVE",
                new State(CrashedUseCase.FINAL_DECISION.after().approvalStatus(), CrashedUseCase.FINAL_DECISION.before().openTasks()),
                CrashedUseCase.FINAL_DECISION),
        COUNTERSIGN_VOTE(122, 33, "countersign vote", "DECIDED_PROCESS_ACTIVE",
                new State(CrashedUseCase.COUNTERSIGN_VOTE.after().approvalStatus(), CrashedUseCase.COUNTERSIGN_VOTE.before().openTasks()),
                CrashedUseCase.COUNTERSIGN_VOTE);

        final int number;
        final int xaTwin;
        final String label;
        final String rule;
        /** The business status after the action, the engine's open tasks before it. */
        final State split;
        /** The use case after submit that is crashed, or null for submit itself. */
        final CrashedUseCase useCase;

        Control(int number, int xaTwin, String label, String rule, State split, CrashedUseCase useCase) {
            this.number = number;
            this.xaTwin = xaTwin;
            this.label = label;
            this.rule = rule;
            this.split = split;
            this.useCase = useCase;
        }
    }

    static Stream<Arguments> scenarios() {
        boolean full = "full".equals(System.getProperty("chaos.matrix"));
        return Stream.of(Control.values()).filter(c -> full || c != Control.COUNTERSIGN_VOTE).map(Arguments::of);
    }

    @ParameterizedTest(name = "{0} without XA: JVM halted between the two local commits")
    @MethodSource("scenarios")
    void haltBetweenTheLocalCommits(Control control) {
        ScenarioRecord s = REPORT.begin(control.number, control.label + " without XA: JVM halted between the two local commits",
                "Negative control (lockstep.tm.transaction-mode=LOCAL): the business database has committed the " + control.label
                        + " as a local transaction; the workflow database's local commit is not sent yet",
                "Byteman rule " + RULE + ": the workflow branch's one-phase commit held at its entry, Runtime.halt(1) at the exit"
                        + " of the business branch's",
                "The databases split: the business database holds the " + control.label + ", the workflow database does not ("
                        + control.split + "); nothing is left prepared to recover it; reconciliation's rule " + control.rule
                        + " names the split. The same halt under XA (scenario " + control.xaTwin + ") leaves both consistent.");
        s.useCase = control.label;
        s.transactionMode = "LOCAL";
        s.xaTwin = control.xaTwin;
        h.ensureService(Timeouts.SHORT);

        if (control.useCase == null) {
            ChaosHarness.Crashed crash = h.haltDuringSubmit(s, RULE, "control s" + control.number, Timeouts.SHORT);
            requireHaltEvidence(s);
            h.restartAndAwaitNoPrepared(s, Timeouts.SHORT, RECOVERY_WINDOW);
            expectSplit(s, control, crash.app(), h.client.submit(crash.app(), crash.key()));
        } else {
            Subject subject = UseCaseCrashChaosIT.atItsStep(s, control.useCase, "chaos control s" + control.number);
            String key = LockstepClient.newKey();
            h.haltDuring(s, subject.applicationId(), RULE, () -> subject.send(h.client, key));
            requireHaltEvidence(s);
            h.restartAndAwaitNoPrepared(s, Timeouts.SHORT, RECOVERY_WINDOW);
            expectSplit(s, control, subject.applicationId(), subject.send(h.client, key));
        }
    }

    /**
     * Scenario 123 (full only): the route to the workflow database dies as its local COMMIT is sent, the business
     * database having committed its own; XA twin 54 (the same blackhole at COMMIT PREPARED). The client hears an error
     * within the socket timeout, and after the heal the databases must be split, as a halt leaves them.
     */
    @Test
    @EnabledIfSystemProperty(named = "chaos.matrix", matches = "full")
    void blackholeToTheWorkflowDatabaseAtItsLocalCommit() throws Exception {
        ScenarioRecord s = REPORT.begin(123, "submit without XA: network blackhole to the workflow database at its local COMMIT",
                "Negative control (lockstep.tm.transaction-mode=LOCAL): the business database has committed the submit as a local"
                        + " transaction; the workflow database's COMMIT is sent when the route to it dies",
                "The workflow database's TCP proxy withholds every byte from the first chunk carrying 'COMMIT', for "
                        + NetworkBlackholeChaosIT.OUTAGE.toSeconds() + " s, then closes the connections it held and forwards again",
                "The databases split: the business database holds the submit, the workflow database does not (" + Control.SUBMIT.split
                        + "); reconciliation's rule " + Control.SUBMIT.rule + " names the split. The same blackhole under XA (scenario"
                        + " 54, at COMMIT PREPARED) ends with the submit committed in both.");
        s.useCase = Control.SUBMIT.label;
        s.transactionMode = "LOCAL";
        s.xaTwin = 54;
        h.ensureService(Timeouts.SHORT);
        long app = h.client.createDraft("chaos control s123");
        s.rowsBefore.putAll(h.rows(app));
        String key = LockstepClient.newKey();
        h.workflowProxy.blackholeWhenSent("COMMIT");
        CompletableFuture<Answer> submit = CompletableFuture.supplyAsync(() -> h.client.submit(app, key));
        try {
            ChaosHarness.awaitTrue(h.workflowProxy::blackholed, Duration.ofSeconds(60), "COMMIT was never sent to the workflow database");
            ChaosHarness.sleep(NetworkBlackholeChaosIT.OUTAGE.toMillis());
            s.rowsAfterFault.putAll(h.rows(app));
            s.preparedAfterFault = h.prepared();
        } finally {
            h.workflowProxy.heal();
        }
        s.faultFired = "the workflow proxy saw 'COMMIT' and withheld " + h.workflowProxy.withheldBytes() + " bytes over "
                + NetworkBlackholeChaosIT.OUTAGE.toSeconds() + " s with the connections kept open";
        assertThat(h.workflowProxy.withheldBytes()).as("the blackhole stalled real traffic").isPositive();
        Answer answer = submit.get(120, TimeUnit.SECONDS);
        s.clientAnswer = answer.toString();
        h.awaitNoPrepared(RECOVERY_WINDOW);
        expectSplit(s, Control.SUBMIT, app, null);
    }

    /** The halt's trace line, and nothing prepared: neither local commit leaves anything for recovery. */
    private static void requireHaltEvidence(ScenarioRecord s) {
        h.requireHaltEvidence(s, RULE, HALT_POINT, "between the two local commits", 0);
    }

    /**
     * After the restart: the split read with plain SQL, the invariant check naming it, the client's retry (when one
     * is given) told that its work succeeded (the business database holds the command's stored answer), and the rule
     * that names the split.
     */
    private static void expectSplit(ScenarioRecord s, Control control, long app, Answer retry) {
        s.rowsAfterRecovery.putAll(h.rows(app));
        s.preparedAfterRecovery = h.prepared();
        State recovered = state(app);
        assertThat(recovered).as("split: the business committed the " + control.label + ", the engine did not").isEqualTo(control.split);
        List<String> violations = h.invariants(s, false).violations();
        assertThat(violations).as("the invariant check names the split application").anyMatch(v -> v.contains("application " + app + " "));

        if (retry != null) {
            s.note("the client's retry with the same Idempotency-Key: " + retry.status() + (retry.replayed() ? " (replayed)" : "")
                    + ": told that work succeeded which the engine never did");
            assertThat(retry.status()).as("the retry: " + retry).isEqualTo(200);
            assertThat(retry.replayed()).as("the business database holds the stored answer").isTrue();
        }

        ChaosHarness.SplitSignals signals = h.splitSignals(s, app);
        s.foundByRule = signals.incidents().stream().filter(i -> i.startsWith(control.rule + " ")).findFirst().map(i -> control.rule)
                .orElse(null);
        s.observedOutcome = "split: business " + recovered.approvalStatus() + ", engine tasks " + recovered.openTasks()
                + (s.foundByRule == null ? "; no reconciliation rule named it: " + signals : "; found by rule " + s.foundByRule);
        assertThat(s.foundByRule).as("the reconciliation incident naming the split: " + signals.incidents()).isEqualTo(control.rule);
    }
}
