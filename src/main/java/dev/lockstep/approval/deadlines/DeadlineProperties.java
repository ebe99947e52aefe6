package dev.lockstep.approval.deadlines;

import dev.lockstep.approval.RiskLevel;
import dev.lockstep.platform.StartupCheckFailure;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Deadline policies per step ({@code lockstep.deadlines.steps.<step id>}, the id of a user task of the
 * shipped processes; docs/operations.md "Step deadlines" lists the defaults). A step without an entry
 * has no deadline. An entry under {@code risk.<LOW|MEDIUM|HIGH>} replaces the step's {@code timing} for
 * applications of that risk level. Times count from the moment the step's task is created.
 */
@ConfigurationProperties("lockstep.deadlines")
public record DeadlineProperties(@DefaultValue Map<String, StepPolicy> steps) {

    public DeadlineProperties {
        steps.forEach((step, policy) -> policy.check("lockstep.deadlines.steps." + step));
    }

    /** The timing that applies to {@code step} at {@code riskLevel}, if the step has a policy. */
    Optional<Timing> timing(String step, String riskLevel) {
        return Optional.ofNullable(steps.get(step)).map(policy -> policy.timingFor(riskLevel));
    }

    Optional<String> escalationGroup(String step) {
        return Optional.ofNullable(steps.get(step)).map(StepPolicy::escalateTo);
    }

    /** {@code escalateTo}: the candidate group an escalation adds to the step's open tasks (there is no org directory). */
    public record StepPolicy(String escalateTo, Timing timing, @DefaultValue Map<RiskLevel, Timing> risk) {

        Timing timingFor(String riskLevel) {
            Timing byRisk = riskLevel == null ? null : risk.get(RiskLevel.valueOf(riskLevel));
            return byRisk != null ? byRisk : timing;
        }

        void check(String prefix) {
            if (timing == null) {
                throw new StartupCheckFailure(prefix + ".timing", "is missing.",
                        "give the step's default timing (remind-after, and optionally escalate-after, final-after with final-action), or remove the step.");
            }
            timing.check(prefix + ".timing", escalateTo, prefix);
            risk.forEach((level, byRisk) -> byRisk.check(prefix + ".risk." + level, escalateTo, prefix));
        }
    }

    /**
     * After {@code remindAfter} the step's candidates are reminded; after {@code escalateAfter} the step is
     * offered to the escalation group too; after {@code finalAfter} the run ends by {@code finalAction}.
     * Each is optional; those given must come in this order. There is no final action that approves.
     */
    public record Timing(Duration remindAfter, Duration escalateAfter, Duration finalAfter, FinalAction finalAction) {

        void check(String prefix, String escalateTo, String stepPrefix) {
            positive(prefix + ".remind-after", remindAfter);
            positive(prefix + ".escalate-after", escalateAfter);
            positive(prefix + ".final-after", finalAfter);
            if (escalateAfter != null && (escalateTo == null || escalateTo.isBlank())) {
                throw new StartupCheckFailure(stepPrefix + ".escalate-to", "is missing but " + prefix + ".escalate-after is set.",
                        "name the candidate group the step escalates to, or remove escalate-after.");
            }
            if ((finalAfter == null) != (finalAction == null)) {
                throw new StartupCheckFailure(prefix + ".final-action", "final-after and final-action come together (final-after "
                        + finalAfter + ", final-action " + finalAction + ").", "set both (final-action REJECT or RETURN) or neither.");
            }
            inOrder(prefix + ".escalate-after", remindAfter, escalateAfter);
            inOrder(prefix + ".final-after", escalateAfter != null ? escalateAfter : remindAfter, finalAfter);
        }

        /** A deadline that is not set is no deadline; one that is set must be positive. */
        private static void positive(String setting, Duration value) {
            if (value != null) {
                StartupCheckFailure.requirePositive(setting, value, "2d or 36h");
            }
        }

        private static void inOrder(String setting, Duration earlier, Duration later) {
            if (earlier != null && later != null && later.compareTo(earlier) <= 0) {
                throw new StartupCheckFailure(setting, "is " + later + ", not after the previous deadline " + earlier + ".",
                        "make remind-after < escalate-after < final-after.");
            }
        }
    }

    /** What the final deadline does: reject the application, or send it back to its applicant as a draft. */
    public enum FinalAction {
        REJECT, RETURN
    }
}
