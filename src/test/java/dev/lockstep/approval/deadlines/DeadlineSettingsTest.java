package dev.lockstep.approval.deadlines;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.approval.RiskLevel;
import dev.lockstep.approval.deadlines.DeadlineProperties.FinalAction;
import dev.lockstep.approval.deadlines.DeadlineProperties.StepPolicy;
import dev.lockstep.approval.deadlines.DeadlineProperties.Timing;
import dev.lockstep.platform.StartupCheckFailure;
import dev.lockstep.transactions.workflow.JobExecutorSettings;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A wrong deadline or job-executor setting stops the startup naming the setting and the fix. */
class DeadlineSettingsTest {

    private static final Timing DEFAULT = new Timing(Duration.ofDays(2), Duration.ofDays(5), Duration.ofDays(15), FinalAction.RETURN);

    @Test
    void aRiskLevelReplacesTheStepsTimingAndOtherLevelsKeepIt() {
        Timing high = new Timing(Duration.ofDays(1), null, Duration.ofDays(10), FinalAction.REJECT);
        DeadlineProperties policies = new DeadlineProperties(Map.of("managerApproval",
                new StepPolicy("senior-managers", DEFAULT, Map.of(RiskLevel.HIGH, high))));

        assertThat(policies.timing("managerApproval", "HIGH")).contains(high);
        assertThat(policies.timing("managerApproval", "LOW")).contains(DEFAULT);
        assertThat(policies.timing("legalReview", "LOW")).isEmpty();
    }

    @Test
    void anEscalationWithoutAGroupIsRefused() {
        assertThatThrownBy(() -> new DeadlineProperties(Map.of("managerApproval", new StepPolicy(null, DEFAULT, Map.of()))))
                .isInstanceOfSatisfying(StartupCheckFailure.class, failure ->
                        assertThat(failure.setting()).isEqualTo("lockstep.deadlines.steps.managerApproval.escalate-to"));
    }

    @Test
    void deadlinesOutOfOrderAreRefused() {
        Timing backwards = new Timing(Duration.ofDays(5), Duration.ofDays(2), null, null);
        assertThatThrownBy(() -> new DeadlineProperties(Map.of("managerApproval",
                new StepPolicy("senior-managers", DEFAULT, Map.of(RiskLevel.HIGH, backwards)))))
                .isInstanceOfSatisfying(StartupCheckFailure.class, failure -> assertThat(failure.setting())
                        .isEqualTo("lockstep.deadlines.steps.managerApproval.risk.HIGH.escalate-after"));
    }

    @Test
    void aFinalDeadlineNeedsItsAction() {
        Timing noAction = new Timing(Duration.ofDays(2), null, Duration.ofDays(10), null);
        assertThatThrownBy(() -> new DeadlineProperties(Map.of("legalReview", new StepPolicy(null, noAction, Map.of()))))
                .isInstanceOfSatisfying(StartupCheckFailure.class, failure ->
                        assertThat(failure.setting()).isEqualTo("lockstep.deadlines.steps.legalReview.timing.final-action"));
    }

    @Test
    void aJobLockThatWouldNotRefireWithinAMinuteIsRefused() {
        assertThatThrownBy(() -> new JobExecutorSettings(true, Duration.ofSeconds(50), Duration.ofSeconds(10), Duration.ofSeconds(5), 3))
                .isInstanceOfSatisfying(StartupCheckFailure.class, failure ->
                        assertThat(failure.setting()).isEqualTo("lockstep.engine.jobs.lock-time"));
        assertThatThrownBy(() -> new JobExecutorSettings(true, Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(5), 3))
                .isInstanceOf(StartupCheckFailure.class).hasMessageContaining("action fence");
        assertThat(new JobExecutorSettings(true, Duration.ofSeconds(30), Duration.ofSeconds(10), Duration.ofSeconds(5), 3).lockTime())
                .isEqualTo(Duration.ofSeconds(30));
    }
}
