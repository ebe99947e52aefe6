package dev.lockstep.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.chaos.report.ScenarioRecord;
import dev.lockstep.chaos.support.ServiceProcess.Timeouts;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Scenarios 130-134 (issue 36 item 1): a reconciliation repair halted at each of the five points of its two-phase
 * commit, as the use cases are. The repair writes the business database (the projection rows, its repair row and audit
 * entry) and reads the engine through the workflow XA resource, so both branches are prepared. A FULL run first
 * repairs, or opens an incident for, whatever else the fork's databases hold, so that the armed run's one two-phase
 * commit is this application's repair; the two points at the coordinator log's commit decision are keyed to the
 * repair's own transaction besides ({@code halt-repair-*-commit-decision.btm}), since a run's one-phase transactions
 * write that log too. After the restart both databases hold the repair entirely or not at all, nothing is prepared,
 * and a FULL run leaves it repaired exactly once.
 *
 * <p>CI runs scenario 129 (the repair halted between its prepares, beside the other background work); this class runs
 * with {@code -Dchaos.matrix=full}.
 */
@EnabledIfSystemProperty(named = "chaos.matrix", matches = "full",
        disabledReason = "the repair at every halt point runs with -Dchaos.matrix=full; CI runs scenario 129")
class ReconciliationRepairChaosIT extends ChaosSuite {

    private static final int FIRST_NUMBER = 130;
    private static final Duration RECOVERY_WINDOW = Duration.ofSeconds(120);
    private static final Map<HaltPoint, String> REPAIR_RULES = Map.of(
            HaltPoint.BEFORE_DECISION_LOGGED, "halt-repair-before-commit-decision.btm",
            HaltPoint.AFTER_DECISION_LOGGED, "halt-repair-after-commit-decision.btm");

    @BeforeAll
    static void startDatabases() {
        h = new ChaosHarness();
    }

    static Stream<Arguments> points() {
        return Arrays.stream(HaltPoint.values()).map(point -> Arguments.of(FIRST_NUMBER + point.ordinal(), point));
    }

    @ParameterizedTest(name = "{0}. reconciliation repair: JVM halted {1}")
    @MethodSource("points")
    void haltInsideTheRepair(int number, HaltPoint point) throws SQLException {
        String rule = REPAIR_RULES.getOrDefault(point, point.rule);
        Map<String, Object> expected = point.commits ? RepairedDrift.REPAIRED_ONCE : RepairedDrift.DRIFTED;
        ScenarioRecord s = REPORT.begin(number, "reconciliation repair: JVM halted " + point.moment,
                point.moment + " of the XA transaction of a reconciliation repair (PROJECTION_DRIFT)",
                "The open countersign rows of the application moved to another step by plain SQL and aged past the settle"
                        + " time, after a FULL run that left nothing else to repair; a FULL run; Byteman rule " + rule
                        + ": Runtime.halt(1)",
                (point.commits ? "Recovery replays the logged commit decision: the repair is committed" : "Presumed abort: the"
                        + " repair is rolled back") + " (" + expected + "); a FULL run then leaves it repaired exactly once.");
        s.useCase = "reconciliation repair";

        h.ensureService(Timeouts.SHORT);
        RepairedDrift.runToTheEnd(h, s, "FULL");
        long app = RepairedDrift.drifted(h);
        s.rowsBefore.putAll(RepairedDrift.rows(h, app));
        h.haltDuringBackgroundWork(s, app, rule, () -> RepairedDrift.startRun(h, "FULL"));
        h.requireHaltEvidence(s, rule, point.name(), point.moment, point.preparedAtHalt);

        h.restartAndAwaitNoPrepared(s, Timeouts.SHORT, RECOVERY_WINDOW);
        s.rowsAfterRecovery.putAll(RepairedDrift.rows(h, app));
        assertThat(RepairedDrift.rows(h, app)).as(point.commits ? "committed" : "rolled back").isEqualTo(expected);

        RepairedDrift.runToTheEnd(h, s, "FULL");
        assertThat(RepairedDrift.rows(h, app)).as("repaired exactly once").isEqualTo(RepairedDrift.REPAIRED_ONCE);
        s.observedOutcome = (point.commits ? "committed" : "rolled back") + " after recovery; after a FULL run: "
                + RepairedDrift.rows(h, app);
        assertThat(h.invariants(s, false).violations()).isEmpty();
    }
}
