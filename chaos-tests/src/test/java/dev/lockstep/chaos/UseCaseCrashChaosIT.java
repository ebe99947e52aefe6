package dev.lockstep.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.chaos.report.ScenarioRecord;
import dev.lockstep.chaos.support.LockstepClient.Answer;
import dev.lockstep.chaos.support.LockstepClient;
import dev.lockstep.chaos.support.ServiceProcess.Timeouts;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiPredicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The JVM halts of scenarios 1-5 for the use cases after submit that matter most to users: the final
 * decision that ends a process, the last decision at the parallel join, a return into the fork, the
 * countersign vote that decides the step, and withdraw. Each scenario prepares an application up to
 * the step over HTTP, halts the service inside that one action's two-phase commit, proves the halt hit
 * its point, restarts the service and expects the action entirely rolled back (no commit decision
 * logged) or entirely committed (decision logged), read from both databases with plain SQL. Then the
 * client retries with the same Idempotency-Key: exactly one effect, and a replayed answer only for
 * work that committed.
 *
 * <p>All JVMs run on the SHORT timings: since both pools register before Atomikos recovers, a logged
 * decision is replayed to both branches however late the restart comes. CI runs every point for the
 * final decision and the two around the commit decision for the others; {@code -Dchaos.matrix=full}
 * runs all 25 (docs/compliance.md).
 *
 * <p>Scenarios 61-70 bring the second-phase halts of scenarios 45 and 46 to the same five use cases, in CI:
 * the JVM halted in the rollback phase after the business branch refused to prepare (61-65), and after both
 * commits before the coordinator logs TERMINATED (66-70). The vanished branch (71-75) leaves its applications
 * split on purpose and runs in its own class, {@link UseCaseVanishedBranchChaosIT}.
 */
class UseCaseCrashChaosIT extends ChaosSuite {

    private static final Duration RECOVERY_WINDOW = Duration.ofSeconds(120);
    private static final int FIRST_NUMBER = 14;
    private static final String REJECTED_TITLE = "chaos rejected at prepare";

    @BeforeAll
    static void startDatabases() {
        h = new ChaosHarness();
    }

    /**
     * What the application looks like in both databases: its approval status and its open tasks; for the task commands
     * also who holds each open task in the engine ({@code step=assignee[ owner X][ PENDING|RESOLVED]}, sorted) and how
     * many {@code task_handover} rows the business holds for it (null when not observed).
     */
    record State(String approvalStatus, Set<String> openTasks, List<String> holders, Integer handovers) {

        State(String approvalStatus, Set<String> openTasks) {
            this(approvalStatus, openTasks, null, null);
        }

        static State of(String approvalStatus, String... openTasks) {
            return new State(approvalStatus, new TreeSet<>(Arrays.asList(openTasks)));
        }

        /** As the report shows it: {@code APPROVING, open tasks [finalApproval]}, with the holders and handovers when observed. */
        @Override
        public String toString() {
            return approvalStatus + ", open tasks " + openTasks + (holders == null ? "" : ", held " + holders)
                    + (handovers == null ? "" : ", " + handovers + " handover row(s)");
        }

        /** The task commands' state: each holder is {@code step[=assignee[ owner X][ PENDING|RESOLVED]]}. */
        static State held(String approvalStatus, int handovers, String... holders) {
            Set<String> steps = new TreeSet<>();
            Arrays.stream(holders).forEach(holder -> steps.add(holder.replaceAll("=.*$", "")));
            return new State(approvalStatus, steps, Arrays.stream(holders).sorted().toList(), handovers);
        }
    }

    /** A use case the matrix halts inside: how to bring an application to its step and what both databases hold around it. */
    interface CrashableUseCase {

        /** The use case's word in the report (docs/chaos.md) and the state it leaves both databases in. */
        record Expectation(String label, State before, State after) {
        }

        Expectation expectation();

        default String label() {
            return expectation().label();
        }

        default State before() {
            return expectation().before();
        }

        default State after() {
            return expectation().after();
        }

        /** Brings a new application titled {@code title} to the step over HTTP (the service running normally) and names the action. */
        Subject prepare(LockstepClient client, String title);

        /** Whether the command takes an Idempotency-Key: a committed one is then replayed, not run again. */
        default boolean keyed() {
            return true;
        }

        /** The status of the same request sent again once the command has committed (keyed: the replayed 200). */
        default int repeatStatusOnceCommitted() {
            return 200;
        }

        /** Reads the state this use case is judged by, with plain SQL. */
        default State observe(long applicationId) {
            return state(applicationId);
        }
    }

    /** The five use cases after submit that move a process: the action that is crashed, and the state before and after it. */
    enum CrashedUseCase implements CrashableUseCase {
        FINAL_DECISION("final decision", State.of("APPROVING", "finalApproval"), State.of("APPROVED")) {
            @Override
            public Subject prepare(LockstepClient client, String title) {
                long app = submitted(client, draft(client, title, false, null));
                approve(client, "bob", app, "managerApproval");
                return new Subject(app, "frank", "POST", "/api/tasks/" + client.openTask(app, "finalApproval") + "/complete",
                        "{\"decision\":\"APPROVE\",\"comment\":\"final\"}");
            }
        },
        JOIN_DECISION("join decision", State.of("APPROVING", "financeReview"), State.of("APPROVING", "finalApproval")) {
            @Override
            public Subject prepare(LockstepClient client, String title) {
                long app = submitted(client, draft(client, title, true, null));
                approve(client, "bob", app, "managerApproval");
                approve(client, "carol", app, "legalReview");
                return new Subject(app, "dave", "POST", "/api/tasks/" + client.openTask(app, "financeReview") + "/complete",
                        "{\"decision\":\"APPROVE\",\"comment\":\"last at the join\"}");
            }
        },
        RETURN_INTO_FORK("return", State.of("APPROVING", "finalApproval"), State.of("APPROVING", "legalReview", "financeReview")) {
            @Override
            public Subject prepare(LockstepClient client, String title) {
                long app = submitted(client, draft(client, title, true, null));
                approve(client, "bob", app, "managerApproval");
                approve(client, "carol", app, "legalReview");
                approve(client, "dave", app, "financeReview");
                return new Subject(app, "frank", "POST", "/api/tasks/" + client.openTask(app, "finalApproval") + "/return",
                        "{\"targetActivityId\":\"reviewFork\",\"mode\":\"RERUN\",\"reason\":\"both reviews again\"}");
            }
        },
        COUNTERSIGN_VOTE("countersign vote", State.of("APPROVING", "countersign"), State.of("APPROVED")) {
            @Override
            public Subject prepare(LockstepClient client, String title) {
                long app = submitted(client, draft(client, title, false, "{\"signers\":[\"bob\",\"carol\"],\"policy\":\"ALL\"}"));
                approve(client, "bob", app, "countersign");
                return new Subject(app, "carol", "POST", "/api/tasks/" + client.openTask(app, "countersign", "carol") + "/complete",
                        "{\"decision\":\"APPROVE\",\"comment\":\"deciding vote\"}");
            }
        },
        WITHDRAW("withdraw", State.of("APPROVING", "managerApproval"), State.of("CANCELED")) {
            @Override
            public Subject prepare(LockstepClient client, String title) {
                long app = submitted(client, draft(client, title, false, null));
                return new Subject(app, "alice", "POST", "/api/applications/" + app + "/withdraw",
                        "{\"reason\":\"changed my mind\"}");
            }
        };

        private final Expectation expectation;

        CrashedUseCase(String label, State before, State after) {
            this.expectation = new Expectation(label, before, after);
        }

        @Override
        public Expectation expectation() {
            return expectation;
        }
    }

    /** The crashed action: which application, who sends what. */
    record Subject(long applicationId, String user, String method, String path, String body) {

        Answer send(LockstepClient client, String idempotencyKey) {
            return client.send(user, method, path, body, idempotencyKey);
        }
    }

    static Stream<Arguments> scenarios() {
        return matrix(FIRST_NUMBER, CrashedUseCase.values(),
                (useCase, point) -> useCase == CrashedUseCase.FINAL_DECISION || point.aroundTheCommitDecision());
    }

    /**
     * Every use case at every halt point, numbered from {@code first} in declaration order (five numbers per use case);
     * without {@code -Dchaos.matrix=full} only those {@code inCi} accepts.
     */
    static Stream<Arguments> matrix(int first, CrashableUseCase[] useCases, BiPredicate<CrashableUseCase, HaltPoint> inCi) {
        boolean full = "full".equals(System.getProperty("chaos.matrix"));
        List<Arguments> scenarios = new ArrayList<>();
        int number = first;
        for (CrashableUseCase useCase : useCases) {
            for (HaltPoint point : HaltPoint.values()) {
                if (full || inCi.test(useCase, point)) {
                    scenarios.add(Arguments.of(number, useCase, point));
                }
                number++;
            }
        }
        return scenarios.stream();
    }

    @ParameterizedTest(name = "{0}. {1}: JVM halted {2}")
    @MethodSource("scenarios")
    void haltInsideTheUseCase(int number, CrashedUseCase useCase, HaltPoint point) {
        haltInside(number, useCase, point);
    }

    /**
     * One scenario of the matrix: the JVM halted at {@code point} inside {@code useCase}'s XA transaction, the restart,
     * both databases rolled back or committed together, and the client's retry with exactly one effect.
     */
    static void haltInside(int number, CrashableUseCase useCase, HaltPoint point) {
        State expected = point.commits ? useCase.after() : useCase.before();
        ScenarioRecord s = REPORT.begin(number, useCase.label() + ": JVM halted " + point.moment,
                point.moment + " of the " + useCase.label() + "'s XA transaction",
                "Byteman rule " + point.rule + ": Runtime.halt(1)",
                (point.commits ? "Recovery replays the logged commit decision: the " + useCase.label() + " is committed in both"
                        : "Presumed abort: the " + useCase.label() + " is rolled back in both")
                        + " databases (" + expected + "); " + (useCase.keyed() ? "a retry with the same Idempotency-Key"
                        : "the same request again (it takes no Idempotency-Key)") + " then has exactly one effect.");
        Subject subject = atItsStep(s, useCase, "chaos use case");
        String key = useCase.keyed() ? LockstepClient.newKey() : null;
        h.haltDuring(s, subject.applicationId(), point.rule, () -> subject.send(h.client, key));
        h.requireHaltEvidence(s, point);

        h.restartAndAwaitNoPrepared(s, Timeouts.SHORT, RECOVERY_WINDOW);
        expectRecovered(s, subject, useCase, expected, point.commits ? "committed: " : "rolled back: ");
        expectRetryHasOneEffect(s, subject, key, useCase, point.commits);
    }

    /** Scenarios 61-65 and 66-70: the second-phase halts of scenarios 45 and 46, one per use case in declaration order. */
    static Stream<Arguments> rollbackPhaseScenarios() {
        return numberedFrom(61);
    }

    static Stream<Arguments> beforeTerminatedScenarios() {
        return numberedFrom(66);
    }

    /** The five use cases, numbered {@code first}, {@code first + 1}, ... in their declaration order. */
    static Stream<Arguments> numberedFrom(int first) {
        return Arrays.stream(CrashedUseCase.values()).map(useCase -> Arguments.of(first + useCase.ordinal(), useCase));
    }

    @ParameterizedTest(name = "{0}. {1}: JVM halted in the rollback phase")
    @MethodSource("rollbackPhaseScenarios")
    void haltInTheRollbackPhase(int number, CrashedUseCase useCase) throws Exception {
        ScenarioRecord s = REPORT.begin(number, useCase.label() + ": JVM halted in the rollback phase, after one branch was rolled back,"
                        + " before the other",
                "The business branch voted no at prepare; Atomikos rolls both branches back and has called rollback on the"
                        + " business branch; the other branch is still prepared",
                "A deferred constraint trigger the test installs in the business DB once the application is at its step (plain SQL,"
                        + " as in scenarios 10 and 45) fails the " + useCase.label() + "'s PREPARE TRANSACTION there; Byteman rule "
                        + ChaosHarness.ROLLBACK_PHASE_RULE + ": the workflow branch's PGXAConnection.rollback held at its entry,"
                        + " Runtime.halt(1) at the entry of the business branch's rollback call",
                "Presumed abort: no commit decision was logged, so recovery rolls the prepared branch back; the " + useCase.label()
                        + " is rolled back in both databases (" + useCase.before() + "), nothing prepared. The client's retry with"
                        + " the same Idempotency-Key finds no stored success: once the trigger is dropped it runs once (200, not a"
                        + " replay, " + useCase.after() + ").");
        String title = REJECTED_TITLE + " s" + number;
        Subject subject = atItsStep(s, useCase, title);
        String key = LockstepClient.newKey();
        h.haltInRollbackPhase(s, subject.applicationId(), title, () -> subject.send(h.client, key));
        assertThat(s.preparedAfterFault).as("the branch left prepared is the workflow one (the business one refused)")
                .allMatch(p -> p.startsWith("workflow-db"));

        h.restartAndAwaitNoPrepared(s, Timeouts.SHORT, RECOVERY_WINDOW);
        expectRecovered(s, subject, useCase, useCase.before(), "rolled back: ");
        expectRetryHasOneEffect(s, subject, key, useCase, false);
    }

    @ParameterizedTest(name = "{0}. {1}: JVM halted after both commits, before TERMINATED is logged")
    @MethodSource("beforeTerminatedScenarios")
    void haltBeforeTerminatedRecord(int number, CrashedUseCase useCase) {
        ScenarioRecord s = REPORT.begin(number, useCase.label() + ": JVM halted after both commits, before the coordinator logs TERMINATED",
                "Both branches of the " + useCase.label() + " committed (two XAResource.commit(xid, false) returned); the"
                        + " coordinator is about to replace its COMMITTING record with TERMINATED",
                "Byteman rule " + ChaosHarness.BEFORE_TERMINATED_RULE + ": counts the two-phase commits of each global transaction"
                        + " and calls Runtime.halt(1) at the entry of Lockstep's coordinator log GroupCommitLog.write(TERMINATED) for a"
                        + " transaction that has done two",
                "Nothing is left to decide: both databases hold the " + useCase.label() + " (" + useCase.after() + ") and no branch is"
                        + " prepared; after the restart recovery closes the COMMITTING record without any heuristic outcome, the"
                        + " in-doubt view is empty, reconciliation and the mismatch check flag nothing; the client's retry with the"
                        + " same Idempotency-Key is the stored answer (200, Idempotent-Replayed), exactly one effect.");
        Subject subject = atItsStep(s, useCase, "chaos use case");
        String key = LockstepClient.newKey();
        String transaction = h.haltBeforeTerminatedRecord(s, subject.applicationId(), () -> subject.send(h.client, key));
        assertThat(state(subject.applicationId())).as("both committed at the halt").isEqualTo(useCase.after());

        h.expectClosedWithoutAlarm(s, subject.applicationId(), transaction, RECOVERY_WINDOW);
        expectRecovered(s, subject, useCase, useCase.after(), "committed, no alarm: ");
        expectRetryHasOneEffect(s, subject, key, useCase, true);
    }

    /** Starts the service if a halt stopped it and brings a new application titled {@code title} to the use case's step. */
    static Subject atItsStep(ScenarioRecord s, CrashableUseCase useCase, String title) {
        s.useCase = useCase.label();
        h.ensureService(Timeouts.SHORT);
        Subject subject = useCase.prepare(h.client, title);
        assertThat(useCase.observe(subject.applicationId())).as("application " + subject.applicationId() + " before the fault")
                .isEqualTo(useCase.before());
        s.rowsBefore.putAll(h.rows(subject.applicationId()));
        return subject;
    }

    /** After recovery: the application in {@code expected} in both databases, nothing prepared, the invariants hold. */
    private static void expectRecovered(ScenarioRecord s, Subject subject, CrashableUseCase useCase, State expected, String outcome) {
        s.rowsAfterRecovery.putAll(h.rows(subject.applicationId()));
        s.preparedAfterRecovery = h.prepared();
        State recovered = useCase.observe(subject.applicationId());
        s.observedOutcome = outcome + recovered;
        assertThat(recovered).as("after recovery").isEqualTo(expected);
        assertThat(h.invariants(s, false).violations()).isEmpty();
    }

    /**
     * The client's retry after the restart: 200 and exactly one effect. A keyed command's stored answer is replayed
     * exactly when the work committed; a command without a key runs again and changes nothing more (claim: 200; unclaim
     * of a task no longer claimed: 409).
     */
    private static void expectRetryHasOneEffect(ScenarioRecord s, Subject subject, String key, CrashableUseCase useCase,
            boolean committed) {
        Answer retry = subject.send(h.client, key);
        s.note((key == null ? "the same request again after the restart: " : "retry with the same Idempotency-Key after the restart: ")
                + retry.status() + (retry.replayed() ? " (replayed)" : ""));
        assertThat(retry.status()).as("the retry's answer: " + retry).isEqualTo(committed ? useCase.repeatStatusOnceCommitted() : 200);
        assertThat(retry.replayed()).as("a stored answer is replayed exactly when keyed work committed")
                .isEqualTo(committed && useCase.keyed());
        assertThat(useCase.observe(subject.applicationId())).as("after the retry: exactly one effect").isEqualTo(useCase.after());
        assertThat(h.invariants(s, false).violations()).isEmpty();
    }

    /** The approval status (business database) and the open tasks (workflow database), read with plain SQL. */
    static State state(long applicationId) {
        return state(applicationId, h.rows(applicationId));
    }

    private static State state(long applicationId, Map<String, Object> rows) {
        String application = String.valueOf(rows.get("business: application " + applicationId));
        String status = application.replaceAll("^approval_status=([A-Z_]+).*$", "$1");
        String tasks = String.valueOf(rows.get("workflow: open tasks"));
        return tasks.equals("none") ? State.of(status) : State.of(status, tasks.split(", "));
    }

    /** {@link #state} with who holds each open task in the engine and the application's {@code task_handover} rows. */
    static State stateWithHolders(long applicationId) {
        Map<String, Object> rows = h.rows(applicationId);
        State state = state(applicationId, rows);
        String holders = String.valueOf(rows.get("workflow: open tasks and holders"));
        return new State(state.approvalStatus(), state.openTasks(),
                holders.equals("none") ? List.of() : Arrays.stream(holders.split(", ")).sorted().toList(),
                Integer.valueOf(String.valueOf(rows.get("business: task_handover rows"))));
    }

    static long draft(LockstepClient client, String title, boolean sensitive, String countersign) {
        String body = "{\"title\":\"" + title + "\",\"assetId\":42,\"amount\":1200.50,\"riskLevel\":\"LOW\",\"sensitive\":" + sensitive
                + (countersign == null ? "" : ",\"countersign\":" + countersign) + "}";
        Answer created = client.send("alice", "POST", "/api/applications", body, null);
        assertThat(created.status()).as("create: " + created).isEqualTo(201);
        return created.json().get("id").asLong();
    }

    static long submitted(LockstepClient client, long applicationId) {
        Answer submitted = client.submit(applicationId, LockstepClient.newKey());
        assertThat(submitted.status()).as("submit: " + submitted).isEqualTo(200);
        return applicationId;
    }

    static void approve(LockstepClient client, String user, long applicationId, String step) {
        String task = client.openTask(applicationId, step, "countersign".equals(step) ? user : null);
        assertThat(task).as(step + " open for " + user).isNotNull();
        Answer approved = client.complete(user, task, LockstepClient.newKey());
        assertThat(approved.status()).as(user + " approves " + step + ": " + approved).isEqualTo(200);
    }
}
