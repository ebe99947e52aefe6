package dev.lockstep.chaos;

import static dev.lockstep.chaos.UseCaseCrashChaosIT.approve;
import static dev.lockstep.chaos.UseCaseCrashChaosIT.draft;
import static dev.lockstep.chaos.UseCaseCrashChaosIT.submitted;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.chaos.UseCaseCrashChaosIT.CrashableUseCase;
import dev.lockstep.chaos.UseCaseCrashChaosIT.State;
import dev.lockstep.chaos.UseCaseCrashChaosIT.Subject;
import dev.lockstep.chaos.support.LockstepClient.Answer;
import dev.lockstep.chaos.support.LockstepClient;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Scenarios 78-117 and 124-128: the JVM halted inside the task commands and the administrator's commands, each of which
 * writes both databases in one XA transaction (the engine's task, the business's projection row, handover record,
 * trail, fence and idempotency record): claim, reject, terminate, delegate, resolve a delegated task, transfer, add a
 * countersigner, remove one, and unclaim. The proof is {@link UseCaseCrashChaosIT}'s: the halt hit its point, after the restart
 * both databases hold the command entirely or not at all, read with plain SQL, here including who holds each open task
 * in the engine and the business's {@code task_handover} rows, nothing is prepared, the whole-database invariants hold
 * (the todo projection's assignee, owner and delegation state equal the engine's), and the client's retry has exactly
 * one effect.
 *
 * <p>CI runs each command at the two points around the commit decision; {@code -Dchaos.matrix=full} runs all five.
 * A class of its own so that the suite's two JVMs share the use-case halts out evenly.
 */
class TaskCommandCrashChaosIT extends ChaosSuite {

    private static final int FIRST_NUMBER = 78;
    private static final int UNCLAIM_FIRST_NUMBER = 124;

    @BeforeAll
    static void startDatabases() {
        h = new ChaosHarness();
    }

    /** The commands, with the state before and after each: a holder is {@code step[=assignee[ owner X][ PENDING|RESOLVED]]}. */
    enum TaskCommand implements CrashableUseCase {
        CLAIM("claim", State.held("APPROVING", 0, "managerApproval"), State.held("APPROVING", 0, "managerApproval=bob")) {
            @Override
            public Subject prepare(LockstepClient client, String title) {
                long app = submitted(client, draft(client, title, false, null));
                return new Subject(app, "bob", "POST", "/api/tasks/" + client.openTask(app, "managerApproval") + "/claim", null);
            }

            @Override
            public boolean keyed() {
                return false;
            }
        },
        REJECT("reject", State.held("APPROVING", 0, "managerApproval"), State.held("REJECTED", 0)) {
            @Override
            public Subject prepare(LockstepClient client, String title) {
                long app = submitted(client, draft(client, title, false, null));
                return new Subject(app, "bob", "POST", "/api/tasks/" + client.openTask(app, "managerApproval") + "/complete",
                        "{\"decision\":\"REJECT\",\"comment\":\"not this time\"}");
            }
        },
        TERMINATE("terminate", State.held("APPROVING", 0, "financeReview", "legalReview"), State.held("CANCELED", 0)) {
            @Override
            public Subject prepare(LockstepClient client, String title) {
                long app = submitted(client, draft(client, title, true, null));
                approve(client, "bob", app, "managerApproval");
                return new Subject(app, "erin", "POST", "/api/admin/applications/" + app + "/terminate",
                        "{\"reason\":\"asset withdrawn from sale\"}");
            }
        },
        DELEGATE("delegate", State.held("APPROVING", 0, "managerApproval"),
                State.held("APPROVING", 1, "managerApproval=carol owner bob PENDING")) {
            @Override
            public Subject prepare(LockstepClient client, String title) {
                long app = submitted(client, draft(client, title, false, null));
                return new Subject(app, "bob", "POST", "/api/tasks/" + client.openTask(app, "managerApproval") + "/delegate",
                        "{\"userId\":\"carol\",\"comment\":\"check the licence\"}");
            }
        },
        RESOLVE("resolve delegation", State.held("APPROVING", 1, "managerApproval=carol owner bob PENDING"),
                State.held("APPROVING", 2, "managerApproval=bob owner bob RESOLVED")) {
            @Override
            public Subject prepare(LockstepClient client, String title) {
                long app = submitted(client, draft(client, title, false, null));
                String task = client.openTask(app, "managerApproval");
                handOver(client, "bob", task, "delegate", "{\"userId\":\"carol\",\"comment\":\"check the licence\"}");
                return new Subject(app, "carol", "POST", "/api/tasks/" + task + "/resolve", "{\"comment\":\"licence ok\"}");
            }
        },
        TRANSFER("transfer", State.held("APPROVING", 0, "managerApproval"), State.held("APPROVING", 1, "managerApproval=carol")) {
            @Override
            public Subject prepare(LockstepClient client, String title) {
                long app = submitted(client, draft(client, title, false, null));
                return new Subject(app, "bob", "POST", "/api/tasks/" + client.openTask(app, "managerApproval") + "/transfer",
                        "{\"userId\":\"carol\",\"comment\":\"on leave\"}");
            }
        },
        ADD_SIGNER("add signer", State.held("APPROVING", 0, "countersign=bob", "countersign=carol"),
                State.held("APPROVING", 1, "countersign=bob", "countersign=carol", "countersign=dave")) {
            @Override
            public Subject prepare(LockstepClient client, String title) {
                long app = submitted(client, draft(client, title, false, "{\"signers\":[\"bob\",\"carol\"],\"policy\":\"ALL\"}"));
                return new Subject(app, "erin", "POST", "/api/applications/" + app + "/countersign/signers",
                        "{\"userId\":\"dave\",\"comment\":\"finance must sign too\"}");
            }
        },
        REMOVE_SIGNER("remove signer", State.held("APPROVING", 0, "countersign=bob", "countersign=carol", "countersign=dave"),
                State.held("APPROVING", 1, "countersign=bob", "countersign=carol")) {
            @Override
            public Subject prepare(LockstepClient client, String title) {
                // ALL would need every signer: a removal is refused below the policy's minimum of deciders; half of three is 2
                long app = submitted(client, draft(client, title, false,
                        "{\"signers\":[\"bob\",\"carol\",\"dave\"],\"policy\":\"RATIO\",\"ratio\":0.5}"));
                return new Subject(app, "erin", "POST", "/api/applications/" + app + "/countersign/signers/remove",
                        "{\"userId\":\"dave\",\"comment\":\"left the company\"}");
            }
        },
        /** Scenarios 124-128: numbered after the negative controls, which took 120-123 before unclaim existed. */
        UNCLAIM("unclaim", State.held("APPROVING", 0, "managerApproval=bob"), State.held("APPROVING", 0, "managerApproval")) {
            @Override
            public Subject prepare(LockstepClient client, String title) {
                long app = submitted(client, draft(client, title, false, null));
                String task = client.openTask(app, "managerApproval");
                handOver(client, "bob", task, "claim", null);
                return new Subject(app, "bob", "POST", "/api/tasks/" + task + "/unclaim", null);
            }

            @Override
            public boolean keyed() {
                return false;
            }

            /** TASK_NOT_CLAIMED: the task is back with its groups, and the repeat changes nothing. */
            @Override
            public int repeatStatusOnceCommitted() {
                return 409;
            }
        };

        private final Expectation expectation;

        TaskCommand(String label, State before, State after) {
            this.expectation = new Expectation(label, before, after);
        }

        @Override
        public Expectation expectation() {
            return expectation;
        }

        @Override
        public State observe(long applicationId) {
            return UseCaseCrashChaosIT.stateWithHolders(applicationId);
        }
    }

    private static void handOver(LockstepClient client, String user, String task, String command, String body) {
        Answer answer = client.send(user, "POST", "/api/tasks/" + task + "/" + command, body, LockstepClient.newKey());
        assertThat(answer.status()).as(user + " " + command + "s task " + task + ": " + answer).isEqualTo(200);
    }

    static Stream<Arguments> scenarios() {
        TaskCommand[] numberedFrom78 = Arrays.stream(TaskCommand.values()).filter(command -> command != TaskCommand.UNCLAIM)
                .toArray(TaskCommand[]::new);
        return Stream.concat(UseCaseCrashChaosIT.matrix(FIRST_NUMBER, numberedFrom78, TaskCommandCrashChaosIT::inCi),
                UseCaseCrashChaosIT.matrix(UNCLAIM_FIRST_NUMBER, new TaskCommand[] {TaskCommand.UNCLAIM},
                        TaskCommandCrashChaosIT::inCi));
    }

    private static boolean inCi(CrashableUseCase command, HaltPoint point) {
        return point.aroundTheCommitDecision();
    }

    @ParameterizedTest(name = "{0}. {1}: JVM halted {2}")
    @MethodSource("scenarios")
    void haltInsideTheCommand(int number, TaskCommand command, HaltPoint point) {
        UseCaseCrashChaosIT.haltInside(number, command, point);
    }
}
