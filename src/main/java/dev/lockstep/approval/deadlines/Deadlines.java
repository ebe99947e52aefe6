package dev.lockstep.approval.deadlines;

import dev.lockstep.approval.deadlines.DeadlineProperties.FinalAction;
import dev.lockstep.approval.deadlines.DeadlineProperties.Timing;
import dev.lockstep.platform.StartupCheckFailure;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import org.activiti.bpmn.model.UserTask;
import org.activiti.engine.RepositoryService;
import org.activiti.engine.delegate.DelegateExecution;
import org.activiti.engine.impl.context.Context;
import org.springframework.stereotype.Component;

/**
 * The step deadline policies, and bean {@code deadlines} of the BPMN. The user tasks of the shipped processes carry no
 * timer boundary event: each is marked {@code lockstep:deadlines="policy"}, its reminder, escalation and final deadline
 * times go into the task's todo projection row ({@link DueDates}) and {@link DeadlineScan} fires them, because every
 * boundary event is an execution the engine creates and deletes with its history on every step, due or not. The
 * built-in versions deployed before the scan fired reminders (V450) still have remind, escalate and final-deadline
 * timers, those deployed before it fired final deadlines (V460) the final deadline's alone; their times and gateways
 * call back here. A time of null creates no timer, so a step
 * without that deadline in its policy simply has none. Times are counted on the engine's clock.
 */
@Component("deadlines")
public class Deadlines {

    /** Process variable the gateways already use; the policy may differ by it. */
    static final String RISK_LEVEL = "riskLevel";

    private final DeadlineProperties policies;
    private final DeadlineFirings firings;

    Deadlines(DeadlineProperties policies, DeadlineFirings firings, RepositoryService repository) {
        this.policies = policies;
        this.firings = firings;
        refuseUnknownSteps(repository);
    }

    /** The reminder timers of runs on process versions deployed before the scan fired reminders. */
    public Date remindAfter(DelegateExecution execution, String step) {
        return due(execution, step, Timing::remindAfter);
    }

    public Date escalateAfter(DelegateExecution execution, String step) {
        return due(execution, step, Timing::escalateAfter);
    }

    /** The final deadline's timer of runs on process versions deployed before the scan fired it (V450). */
    public Date finalAfter(DelegateExecution execution, String step) {
        return due(execution, step, Timing::finalAfter);
    }

    /**
     * The final deadline's gateway, when it has passed: reject, or else return to the applicant, as the
     * policy says now. A policy that no longer has a final action fails the firing, naming the setting.
     */
    public boolean rejects(DelegateExecution execution, String step) {
        return finalAction(step, riskLevel(execution)) == FinalAction.REJECT;
    }

    private FinalAction finalAction(String step, String riskLevel) {
        return policies.timing(step, riskLevel).map(Timing::finalAction).orElseThrow(() -> new IllegalStateException(
                "the final deadline of step " + step + " passed but lockstep.deadlines.steps." + step + " no longer has a final-action"));
    }

    /** The interrupting timers of runs on process versions deployed before the final deadline had one timer (V370). */
    public Date rejectAfter(DelegateExecution execution, String step) {
        return due(execution, step, timing -> timing.finalAction() == FinalAction.REJECT ? timing.finalAfter() : null);
    }

    public Date returnAfter(DelegateExecution execution, String step) {
        return due(execution, step, timing -> timing.finalAction() == FinalAction.RETURN ? timing.finalAfter() : null);
    }

    public void remind(DelegateExecution execution, String step) {
        remind(Firing.of(execution, step));
    }

    public void escalate(DelegateExecution execution, String step) {
        escalate(Firing.of(execution, step));
    }

    /** Whether it reminded: false when the step's reminder was claimed already. */
    boolean remind(Firing firing) {
        return firings.remind(firing);
    }

    /** Whether it ended the run: false when the step's final deadline was claimed already. */
    boolean expire(Firing firing) {
        return firings.expire(firing, riskLevel -> finalAction(firing.step(), riskLevel));
    }

    /** Whether it escalated: false when the step's escalation was claimed already. */
    boolean escalate(Firing firing) {
        return firings.escalate(firing, policies.escalationGroup(firing.step()).orElseThrow(() -> new IllegalStateException(
                "step " + firing.step() + " escalates but lockstep.deadlines.steps." + firing.step() + ".escalate-to is no longer set")));
    }

    /** Its flow leads to the end event that records the outcome REJECTED. */
    public void reject(DelegateExecution execution, String step) {
        firings.end(Firing.of(execution, step), FinalAction.REJECT);
    }

    /** Its flow leads to the end event that records the outcome RETURNED. */
    public void returnToApplicant(DelegateExecution execution, String step) {
        firings.end(Firing.of(execution, step), FinalAction.RETURN);
    }

    /** How long after its creation a task of {@code step} reminds, at this risk level; null without a reminder. */
    Duration reminderDelay(String step, String riskLevel) {
        return policies.timing(step, riskLevel).map(Timing::remindAfter).orElse(null);
    }

    /** How long after its creation a task of {@code step} escalates, at this risk level; null without an escalation. */
    Duration escalationDelay(String step, String riskLevel) {
        return policies.timing(step, riskLevel).map(Timing::escalateAfter).orElse(null);
    }

    /** How long after its creation a task of {@code step} meets its final deadline, at this risk level; null without one. */
    Duration finalDelay(String step, String riskLevel) {
        return policies.timing(step, riskLevel).map(Timing::finalAfter).orElse(null);
    }

    private Date due(DelegateExecution execution, String step, Function<Timing, Duration> which) {
        Duration after = policies.timing(step, riskLevel(execution)).map(which).orElse(null);
        return after == null ? null : Date.from(engineNow().plus(after));
    }

    private static String riskLevel(DelegateExecution execution) {
        return (String) execution.getVariable(RISK_LEVEL);
    }

    static Instant engineNow() {
        return Context.getProcessEngineConfiguration().getClock().getCurrentTime().toInstant();
    }

    /** A policy for a step no shipped process has is a typo that would silently never fire. */
    private void refuseUnknownSteps(RepositoryService repository) {
        Set<String> steps = new TreeSet<>();
        repository.createProcessDefinitionQuery().latestVersion().list().forEach(definition ->
                repository.getBpmnModel(definition.getId()).getMainProcess().findFlowElementsOfType(UserTask.class)
                        .forEach(task -> steps.add(task.getId())));
        for (String step : policies.steps().keySet()) {
            if (!steps.contains(step)) {
                throw new StartupCheckFailure("lockstep.deadlines.steps." + step, "names no step of the deployed processes.",
                        "use one of " + steps + ", or remove the entry.");
            }
        }
    }
}
