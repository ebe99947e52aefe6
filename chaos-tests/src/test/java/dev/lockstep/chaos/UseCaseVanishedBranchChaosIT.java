package dev.lockstep.chaos;

import static dev.lockstep.chaos.UseCaseCrashChaosIT.state;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.chaos.UseCaseCrashChaosIT.CrashedUseCase;
import dev.lockstep.chaos.UseCaseCrashChaosIT.State;
import dev.lockstep.chaos.UseCaseCrashChaosIT.Subject;
import dev.lockstep.chaos.report.ScenarioRecord;
import dev.lockstep.chaos.support.LockstepClient.Answer;
import dev.lockstep.chaos.support.LockstepClient;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Scenario 47's vanished branch for the use cases after submit (71-75): the workflow branch of the action is
 * rolled back by hand (ROLLBACK PREPARED) after the commit decision was logged, so the business database holds
 * the action and the workflow database does not. Atomikos takes the missing branch as committed; the product
 * must flag the split, and the suite confirms both sides with plain SQL.
 *
 * <p>A class of its own (own databases, one service JVM that is never halted) because every scenario leaves its
 * application split on purpose: the whole-database invariant check here must name exactly the split
 * applications, which no other class's check could tolerate.
 */
class UseCaseVanishedBranchChaosIT extends ChaosSuite {

    private static final Duration RECOVERY_WINDOW = Duration.ofSeconds(120);
    private static final Pattern NAMED_APPLICATION = Pattern.compile("application (?:event \\S+ for application )?(\\d+)");
    /** The applications the scenarios so far split on purpose. */
    private static final Set<Long> SPLIT = new TreeSet<>();

    @BeforeAll
    static void startDatabases() {
        h = new ChaosHarness();
    }

    static Stream<Arguments> scenarios() {
        return UseCaseCrashChaosIT.numberedFrom(71);
    }

    /** The reconciliation rule that must open an incident on the split application. */
    static String expectedIncident(CrashedUseCase useCase) {
        return switch (useCase) {
            case FINAL_DECISION, COUNTERSIGN_VOTE -> "DECIDED_PROCESS_ACTIVE";
            case WITHDRAW -> "CANCELED_LIVE_WORK";
            // still APPROVING on both sides: only the action fence tells that the business holds one action more
            case JOIN_DECISION, RETURN_INTO_FORK -> "ACTION_FENCE_DRIFT";
        };
    }

    /**
     * What the same action answers once the incident is open. A running application is frozen by it; a decided or
     * canceled one accepts no action at all and is refused as not running before the freeze is looked at.
     */
    static String expectedRefusal(CrashedUseCase useCase) {
        return "APPROVING".equals(useCase.after().approvalStatus()) ? "APPLICATION_FROZEN" : "APPLICATION_NOT_RUNNING";
    }

    @ParameterizedTest(name = "{0}. {1}: workflow branch rolled back by hand after the commit decision")
    @MethodSource("scenarios")
    void branchVanishesAtCommit(int number, CrashedUseCase useCase) throws Exception {
        String rule = ChaosHarness.VANISH_AT_COMMIT_RULE;
        String incident = expectedIncident(useCase);
        ScenarioRecord s = REPORT.begin(number, useCase.label() + ": workflow branch rolled back by hand (ROLLBACK PREPARED) after the"
                        + " commit decision was logged",
                "Both branches of the " + useCase.label() + " prepared and the COMMITTING decision logged; the workflow branch's"
                        + " XAResource.commit is pending when a DBA or a script rolls that prepared branch back",
                "Byteman rule " + rule + " holds the workflow commit 4 s; meanwhile the test runs ROLLBACK PREPARED of the"
                        + " transaction's workflow branch as the database owner; the held commit then finds no such prepared"
                        + " transaction",
                "The split, flagged: the business database holds the " + useCase.label() + " (status "
                        + useCase.after().approvalStatus() + ", action_seq counted up, its approval record or event), the workflow"
                        + " database does not (open tasks " + useCase.before().openTasks() + ", lockstepActionSeq one behind). A"
                        + " reconciliation run opens an OPEN " + incident + " incident on the application and GET"
                        + " /api/recovery/mismatches lists it; the suite's invariant checker names exactly the split applications."
                        + " The same action sent again is refused (409 " + expectedRefusal(useCase) + ") and changes nothing.");
        Subject subject = UseCaseCrashChaosIT.atItsStep(s, useCase, "chaos vanished s" + number);
        long app = subject.applicationId();
        s.rowsBefore.putAll(splitRows(app));
        String key = LockstepClient.newKey();
        Answer answer = h.vanishAtCommit(s, () -> subject.send(h.client, key));
        h.awaitNoPrepared(RECOVERY_WINDOW);
        s.rowsAfterFault.putAll(h.rows(app));
        s.rowsAfterFault.putAll(splitRows(app));
        s.preparedAfterRecovery = h.prepared();
        SPLIT.add(app);

        // the split, read with plain SQL: the business status moved, the engine's tasks did not
        State split = state(app);
        assertThat(split).as("business status after the action, engine tasks before it")
                .isEqualTo(new State(useCase.after().approvalStatus(), useCase.before().openTasks()));
        Map<String, Object> before = s.rowsBefore;
        Map<String, Object> after = s.rowsAfterFault;
        assertThat(number(after, "business: action_seq")).as("the business counted the action")
                .isEqualTo(number(before, "business: action_seq") + 1);
        assertThat(number(after, "workflow: lockstepActionSeq")).as("the engine did not")
                .isEqualTo(number(before, "workflow: lockstepActionSeq"));
        assertThat(after.get("business: open tasks in task_projection")).as("the todo projection moved with the business")
                .isEqualTo(String.join(", ", useCase.after().openTasks()).isEmpty() ? "none" : String.join(", ", useCase.after().openTasks()));
        String recorded = useCase == CrashedUseCase.WITHDRAW ? "business: application_event WITHDRAWN rows" : "business: approval_record rows";
        assertThat(number(after, recorded)).as("the business holds the action's record").isEqualTo(number(before, recorded) + 1);
        expectInvariantViolationsNameExactlyTheSplit(s);

        ChaosHarness.SplitSignals signals = h.splitSignals(s, app);
        s.rowsAfterRecovery.putAll(h.rows(app));
        s.rowsAfterRecovery.putAll(splitRows(app));
        s.observedOutcome = "client got " + (answer.answered() ? "HTTP " + answer.status() : "no answer") + "; split: business "
                + s.rowsAfterFault.get("business: application " + app) + ", engine tasks " + split.openTasks() + "; flagged: "
                + signals.incidents() + ", mismatches " + signals.mismatches().size() + ", heuristics " + signals.heuristics();
        assertThat(signals.incidents()).as("reconciliation opened an " + incident + " incident on the application")
                .anyMatch(i -> i.startsWith(incident + " (OPEN)"));
        assertThat(signals.mismatches()).as("the mismatch check lists the application").hasSize(1);

        Map<String, Object> beforeAgain = splitRows(app);
        Answer again = subject.send(h.client, LockstepClient.newKey());
        s.note("the same action again with a new key while the incident is open: " + again);
        assertThat(again.status()).as("refused: " + again).isEqualTo(409);
        assertThat(again.json().path("code").asString()).as("refused as the application's state demands").isEqualTo(expectedRefusal(useCase));
        assertThat(splitRows(app)).as("the refused action changed nothing").isEqualTo(beforeAgain);
        Answer retry = subject.send(h.client, key);
        s.note("the client's retry with the same Idempotency-Key: " + retry + (retry.replayed() ? " (replayed)" : ""));
    }

    /** The invariant checker sees the splits: the applications its violations name are exactly the split ones. */
    private static void expectInvariantViolationsNameExactlyTheSplit(ScenarioRecord s) throws SQLException {
        Set<String> tasksOfSplit = new TreeSet<>();
        try (Connection b = h.business.connect()) {
            for (long app : SPLIT) {
                tasksOfSplit.addAll(ChaosHarness.strings(b, "with split(id) as (select cast(? as bigint))"
                        + " select task_id from task_projection, split where application_id = split.id"
                        + " union select task_id from approval_record, split where application_id = split.id", app));
            }
        }
        Set<Long> named = new TreeSet<>();
        for (String violation : h.invariants(s, false).violations()) {
            Matcher m = NAMED_APPLICATION.matcher(violation);
            if (m.find()) {
                named.add(Long.parseLong(m.group(1)));
            } else {
                assertThat(tasksOfSplit).as("a violation that names no application is about a task of a split one: " + violation)
                        .anyMatch(violation::contains);
            }
        }
        assertThat(named).as("the applications the invariant checker names").isEqualTo(SPLIT);
    }

    /** What the split concerns beyond {@link ChaosHarness#rows}: both sides of the action fence, the todo projection, the publish event. */
    private static Map<String, Object> splitRows(long app) throws SQLException {
        Map<String, Object> rows = new java.util.LinkedHashMap<>();
        try (Connection b = h.business.connect(); Connection w = h.workflow.connect()) {
            rows.put("business: action_seq", ChaosHarness.one(b, "select action_seq from application where id = ?", app));
            rows.put("workflow: lockstepActionSeq", ChaosHarness.one(w, "select coalesce(max(v.long_), -1) from act_ru_variable v"
                    + " join act_ru_execution e on e.id_ = v.proc_inst_id_ and e.parent_id_ is null"
                    + " where v.name_ = 'lockstepActionSeq' and v.execution_id_ = v.proc_inst_id_ and e.business_key_ = ?",
                    Long.toString(app)));
            rows.put("business: open tasks in task_projection", ChaosHarness.one(b, "select coalesce(string_agg(task_definition_key, ', '"
                    + " order by task_definition_key), 'none') from task_projection where state = 'OPEN' and application_id = ?", app));
            rows.put("business: application_event WITHDRAWN rows", ChaosHarness.one(b,
                    "select count(*) from application_event where kind = 'WITHDRAWN' and application_id = ?", app));
            rows.put("business: publish_status", ChaosHarness.one(b, "select publish_status from application where id = ?", app));
            rows.put("business: outbox_event rows", ChaosHarness.one(b, "select coalesce(string_agg(event_type || ' ' || event_status,"
                    + " '; '), 'none') from outbox_event where aggregate_id = ?", Long.toString(app)));
        }
        return rows;
    }

    private static long number(Map<String, Object> rows, String key) {
        return Long.parseLong(String.valueOf(rows.get(key)));
    }
}
