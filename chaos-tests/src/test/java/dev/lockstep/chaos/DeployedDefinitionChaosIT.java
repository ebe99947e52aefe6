package dev.lockstep.chaos;

import static dev.lockstep.chaos.UseCaseCrashChaosIT.approve;
import static dev.lockstep.chaos.UseCaseCrashChaosIT.submitted;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.chaos.UseCaseCrashChaosIT.CrashableUseCase;
import dev.lockstep.chaos.UseCaseCrashChaosIT.State;
import dev.lockstep.chaos.UseCaseCrashChaosIT.Subject;
import dev.lockstep.chaos.support.LockstepClient;
import dev.lockstep.chaos.support.LockstepClient.Answer;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Scenarios 135-149: the use-case halts of {@link UseCaseCrashChaosIT} on a definition deployed over the API during the
 * test, not on the built-in flows (issue 30). The first scenario registers a business type, proposes a declarative flow
 * as one admin and has another approve it; every application then runs on that version: a parallel review, a countersign
 * under ALL, and a final approval, each taken or skipped by the application's routable field {@code route}. Halted are the
 * final decision, the last decision at the parallel join and the countersign vote that decides the step; the proof is
 * the same: after the restart both databases hold the action entirely or not at all, read with plain SQL, nothing is
 * prepared, the whole-database invariants hold and the client's retry has exactly one effect.
 *
 * <p>CI runs each use case at one point beside the commit decision (the final decision and the countersign vote after
 * it is logged, the join before); {@code -Dchaos.matrix=full} runs all five points of each.
 */
class DeployedDefinitionChaosIT extends ChaosSuite {

    private static final int FIRST_NUMBER = 135;
    /** A new key per run, so a suite pointed at databases someone else runs (-Dchaos.db.*) registers it afresh. */
    private static String type;
    /** The countersign signers every application names: its version has a countersign step, taken only on one route. */
    private static final String SIGNERS = "[\"bob\",\"carol\"]";
    static final String FLOW = """
            {"name": "Chaos release", "steps": [
              {"id": "reviews", "when": "route == 'JOIN'",
               "parallel": [[{"id": "legalReview", "candidateGroups": ["legal"]}], [{"id": "financeReview", "candidateGroups": ["finance"]}]]},
              {"id": "countersign", "when": "route == 'COUNTERSIGN'", "countersign": {"policy": "ALL"}},
              {"id": "finalApproval", "candidateGroups": ["directors"]}]}""";
    private static boolean deployed;

    @BeforeAll
    static void startDatabases() {
        h = new ChaosHarness();
        type = "CHAOS_RELEASE_" + LockstepClient.newKey().replace("-", "").substring(0, 8).toUpperCase(java.util.Locale.ROOT);
        deployed = false;
    }

    enum DeployedUseCase implements CrashableUseCase {
        FINAL_DECISION("final decision on a deployed definition", State.of("APPROVING", "finalApproval"), State.of("APPROVED"),
                HaltPoint.AFTER_DECISION_LOGGED) {
            @Override
            public Subject prepare(LockstepClient client, String title) {
                long app = submitted(client, typedDraft(client, title, "JOIN"));
                approve(client, "carol", app, "legalReview");
                approve(client, "dave", app, "financeReview");
                return new Subject(app, "frank", "POST", "/api/tasks/" + client.openTask(app, "finalApproval") + "/complete",
                        "{\"decision\":\"APPROVE\",\"comment\":\"final\"}");
            }
        },
        JOIN_DECISION("join decision on a deployed definition", State.of("APPROVING", "financeReview"),
                State.of("APPROVING", "finalApproval"), HaltPoint.BEFORE_DECISION_LOGGED) {
            @Override
            public Subject prepare(LockstepClient client, String title) {
                long app = submitted(client, typedDraft(client, title, "JOIN"));
                approve(client, "carol", app, "legalReview");
                return new Subject(app, "dave", "POST", "/api/tasks/" + client.openTask(app, "financeReview") + "/complete",
                        "{\"decision\":\"APPROVE\",\"comment\":\"last at the join\"}");
            }
        },
        COUNTERSIGN_VOTE("countersign vote on a deployed definition", State.of("APPROVING", "countersign"),
                State.of("APPROVING", "finalApproval"), HaltPoint.AFTER_DECISION_LOGGED) {
            @Override
            public Subject prepare(LockstepClient client, String title) {
                long app = submitted(client, typedDraft(client, title, "COUNTERSIGN"));
                approve(client, "bob", app, "countersign");
                return new Subject(app, "carol", "POST", "/api/tasks/" + client.openTask(app, "countersign", "carol") + "/complete",
                        "{\"decision\":\"APPROVE\",\"comment\":\"deciding vote\"}");
            }
        };

        private final Expectation expectation;
        private final HaltPoint inCi;

        DeployedUseCase(String label, State before, State after, HaltPoint inCi) {
            this.expectation = new Expectation(label, before, after);
            this.inCi = inCi;
        }

        @Override
        public Expectation expectation() {
            return expectation;
        }
    }

    static Stream<Arguments> scenarios() {
        return UseCaseCrashChaosIT.matrix(FIRST_NUMBER, DeployedUseCase.values(),
                (useCase, point) -> ((DeployedUseCase) useCase).inCi == point);
    }

    @ParameterizedTest(name = "{0}. {1}: JVM halted {2}")
    @MethodSource("scenarios")
    void haltInsideTheUseCaseOnADeployedDefinition(int number, DeployedUseCase useCase, HaltPoint point) {
        UseCaseCrashChaosIT.haltInside(number, useCase, point);
    }

    /** An application of the deployed type, deploying the type and its flow over the API first if this run has not yet. */
    static long typedDraft(LockstepClient client, String title, String route) {
        if (!deployed) {
            deployed = true; // once: a failed deployment fails this scenario, not the next ones on "already registered"
            deploy(client);
        }
        String body = "{\"type\":\"" + type + "\",\"title\":\"" + title + "\",\"fields\":{\"route\":\"" + route + "\"},\"signers\":"
                + SIGNERS + "}";
        Answer created = client.send("alice", "POST", "/api/applications", body, null);
        assertThat(created.status()).as("create: " + created).isEqualTo(201);
        return created.json().get("id").asLong();
    }

    /** Registers the type, proposes the flow as erin and activates it as grace: the four-eyes deployment a user runs. */
    private static void deploy(LockstepClient client) {
        Answer registered = client.send("erin", "POST", "/api/business-types", """
                {"key": "%s", "name": "Chaos release", "routableFields": ["route"], "publishes": false,
                 "schema": {"type": "object", "required": ["route"], "properties": {"route": {"type": "string"}}}}"""
                .formatted(type), null);
        assertThat(registered.status()).as("register: " + registered).isEqualTo(201);
        Answer proposed = client.send("erin", "POST", "/api/business-types/" + type + "/definitions", FLOW, null);
        assertThat(proposed.status()).as("propose: " + proposed).isEqualTo(201);
        Answer approved = client.send("grace", "POST", "/api/business-types/" + type + "/definitions/1/approve", null, null);
        assertThat(approved.status()).as("approve: " + approved).isEqualTo(200);
        assertThat(approved.json().get("state").asString()).isEqualTo("ACTIVE");
    }
}
