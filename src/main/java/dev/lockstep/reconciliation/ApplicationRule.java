package dev.lockstep.reconciliation;

import static dev.lockstep.reconciliation.Classification.INCIDENT;
import static dev.lockstep.reconciliation.Classification.REPAIRABLE;

import dev.lockstep.reconciliation.Evidence.Instance;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The rules of seed 000 section 29 over one application and its approval runs. "Running" always means
 * a process instance the engine's runtime still has — never "has an open task": parallel reviews,
 * waiting jobs and multi-instance countersigns run with zero or several tasks. docs/reconciliation.md
 * describes each rule.
 */
public enum ApplicationRule implements ReconciliationRule {

    /** A draft has no run; an active one means a start whose business write-back was lost, or a duplicate. */
    DRAFT_ACTIVE_INSTANCE(evidence -> evidence.hasStatus("DRAFT") && !evidence.activeInstances().isEmpty()
            ? incident(evidence.activeInstances().get(0), "application is DRAFT but the engine runs " + ids(evidence.activeInstances()))
            : null),

    /** Submission is one XA transaction: a committed SUBMITTING is itself a defect, never a state to retry from. */
    SUBMITTING_NO_INSTANCE(evidence -> evidence.hasStatus("SUBMITTING") && evidence.activeInstances().isEmpty()
            ? incident(evidence, "application is SUBMITTING (committed) and no process instance runs for it")
            : null),

    /** The start committed, the business write-back did not: bind the one certain instance, APPROVING. */
    SUBMITTING_WITH_INSTANCE(evidence -> {
        if (!evidence.hasStatus("SUBMITTING") || evidence.activeInstances().isEmpty()) {
            return null;
        }
        Instance only = evidence.activeInstances().get(0);
        String difference = "application is SUBMITTING but the engine runs " + ids(evidence.activeInstances());
        return evidence.activeInstances().size() == 1 && !evidence.isBound(only.id())
                && !evidence.lifecycleBound()
                ? repairable(difference, only.id(), only.definitionId())
                : incident(evidence, difference);
    }),

    /** The run ended and the application did not follow: take the process's explicit outcome, if unambiguous. */
    APPROVING_PROCESS_ENDED(evidence -> {
        String instanceId = evidence.processInstanceId();
        if (!evidence.hasStatus("APPROVING") || instanceId == null || evidence.isActive(instanceId)) {
            return null;
        }
        Evidence.EndedInstance ended = evidence.ended(instanceId);
        if (ended == null) {
            return incident(evidence, "application is APPROVING under " + instanceId
                    + ", which neither runs nor has ended in history");
        }
        String difference = "application is APPROVING but " + instanceId + " ended at " + ended.endedAt() + " with outcome "
                + ended.outcome();
        return conflictingOutcome(evidence, ended.outcome()) == null
                ? repairable(difference, instanceId, ended.definitionId())
                : incident(evidence, difference + "; " + conflictingOutcome(evidence, ended.outcome()));
    }),

    /** The business says decided while the engine still runs the approval: decided early, or a second run. */
    DECIDED_PROCESS_ACTIVE(evidence -> evidence.hasStatus("APPROVED", "REJECTED") && !evidence.activeInstances().isEmpty()
            ? incident(evidence.activeInstances().get(0), "application is " + evidence.approvalStatus() + " but the engine still runs "
                    + ids(evidence.activeInstances()))
            : null),

    /** Canceled means no work left: no running instance, task or job. */
    CANCELED_LIVE_WORK(evidence -> evidence.hasStatus("CANCELED")
            && !(evidence.activeInstances().isEmpty() && evidence.openTasks().isEmpty() && evidence.jobs().isEmpty())
            ? incident(evidence, "application is CANCELED but the engine still has instances " + ids(evidence.activeInstances())
                    + ", " + evidence.openTasks().size() + " open tasks and " + evidence.jobs().size() + " jobs")
            : null),

    /** Which of two runs is the real one is a human decision; never pick one automatically. */
    TWO_ACTIVE_INSTANCES(evidence -> evidence.activeInstances().size() > 1
            ? incident(evidence, "the engine runs " + evidence.activeInstances().size() + " instances for one application: "
                    + ids(evidence.activeInstances()))
            : null),

    /**
     * A running instance no binding row names. Repairable only when it is the application's own run and the
     * only one; under DRAFT or SUBMITTING the rules above speak instead.
     */
    INSTANCE_WITHOUT_BINDING(evidence -> {
        if (evidence.hasStatus("DRAFT", "SUBMITTING")) {
            return null;
        }
        List<Instance> unbound = evidence.activeInstances().stream().filter(instance -> !evidence.isBound(instance.id())).toList();
        if (unbound.isEmpty()) {
            return null;
        }
        Instance first = unbound.get(0);
        String difference = "no business_process_binding row for running instance(s) " + ids(unbound);
        return evidence.hasStatus("APPROVING") && evidence.activeInstances().size() == 1
                && first.id().equals(evidence.processInstanceId()) && !evidence.lifecycleBound()
                ? repairable(difference, first.id(), first.definitionId())
                : incident(first, difference);
    }),

    /**
     * Each action counts itself in both databases in one XA transaction (application.action_seq and the run's
     * ActionFence variable). A running run that holds another count saw an action commit in one database only: a
     * branch rolled back by hand after the commit decision. Which side is right is a human decision.
     */
    ACTION_FENCE_DRIFT(evidence -> {
        Instance run = evidence.hasStatus("APPROVING") ? evidence.active(evidence.processInstanceId()) : null;
        if (run == null || run.actionSeq() == null || run.actionSeq() == evidence.actionSeq()) {
            return null;
        }
        return incident(evidence, "application counts " + evidence.actionSeq() + " actions but its running process " + run.id()
                + " holds action " + run.actionSeq() + ": an action committed in one database only");
    }),

    /**
     * The todo projection must list exactly the engine's open tasks, each at its step; who holds them is
     * {@link #TASK_HOLDER_DRIFT}'s.
     */
    PROJECTION_DRIFT(evidence -> {
        List<Evidence.Task> missing = unmatched(evidence.openTasks(), evidence.projectedOpenTasks());
        List<Evidence.Task> extra = unmatched(evidence.projectedOpenTasks(), evidence.openTasks());
        return missing.isEmpty() && extra.isEmpty() ? null
                : repairable("task_projection differs from the engine's open tasks: missing or at another step " + missing
                        + ", not open in the engine " + extra, evidence.processInstanceId(), evidence.processDefinitionId());
    }),

    /**
     * An open task the projection lists with other hands than the engine gives it (assignee, owner or delegation
     * state): those tasks' rows are written again from the engine, each alone, never the whole projection.
     */
    TASK_HOLDER_DRIFT(evidence -> {
        List<Evidence.Task> drifted = heldOtherwise(evidence);
        return drifted.isEmpty() ? null
                : repairable("task_projection rows hold open tasks otherwise than the engine " + drifted + ", engine "
                        + evidence.openTasks().stream().filter(task -> drifted.stream().anyMatch(task::sameTask)).toList(),
                        evidence.processInstanceId(), evidence.processDefinitionId());
    }),

    /** A command record commits together with its result: one still PROCESSING past the SLA was never finished. */
    COMMAND_STUCK(evidence -> evidence.stuckCommands().isEmpty() ? null
            : incident(evidence, "workflow_command still PROCESSING beyond the SLA: " + evidence.stuckCommands()));

    private final Function<Evidence, Verdict> check;

    /** The projection rows of tasks the engine has open at the same step, but with other hands: what {@link #TASK_HOLDER_DRIFT} repairs. */
    static List<Evidence.Task> heldOtherwise(Evidence evidence) {
        return evidence.projectedOpenTasks().stream()
                .filter(row -> evidence.openTasks().stream().anyMatch(task -> task.sameTask(row) && !task.equals(row)))
                .toList();
    }

    /** The tasks of {@code tasks} that {@code others} has not at the same step. */
    private static List<Evidence.Task> unmatched(List<Evidence.Task> tasks, List<Evidence.Task> others) {
        return tasks.stream().filter(task -> others.stream().noneMatch(task::sameTask)).toList();
    }

    ApplicationRule(Function<Evidence, Verdict> check) {
        this.check = check;
    }

    @Override
    public String id() {
        return name();
    }

    @Override
    public Optional<Finding> check(Evidence evidence) {
        return Optional.ofNullable(check.apply(evidence)).map(verdict -> new Finding(id(), verdict.classification(),
                verdict.difference(), verdict.processInstanceId(), verdict.processDefinitionId()));
    }

    /**
     * Why the recorded outcome cannot simply be taken over, or null when it can: only an explicit APPROVED or
     * REJECTED end is a decision, and an APPROVED end contradicts a REJECT recorded in the same lifecycle.
     */
    static String conflictingOutcome(Evidence evidence, String outcome) {
        if (outcome == null) {
            return "the process recorded no outcome";
        }
        if (!outcome.equals("APPROVED") && !outcome.equals("REJECTED")) {
            return "outcome " + outcome + " is a cancellation the application never recorded";
        }
        if (outcome.equals("APPROVED") && evidence.decisions().contains("REJECT")) {
            return "an approver's REJECT is recorded for this lifecycle";
        }
        return null;
    }

    /** A rule's judgement before it is named: enum constants cannot refer to themselves in their arguments. */
    private record Verdict(Classification classification, String difference, String processInstanceId,
            String processDefinitionId) {
    }

    private static Verdict repairable(String difference, String processInstanceId, String processDefinitionId) {
        return new Verdict(REPAIRABLE, difference, processInstanceId, processDefinitionId);
    }

    private static Verdict incident(Evidence evidence, String difference) {
        return new Verdict(INCIDENT, difference, evidence.processInstanceId(), evidence.processDefinitionId());
    }

    /** An incident about a running instance the application does not name as its run. */
    private static Verdict incident(Instance instance, String difference) {
        return new Verdict(INCIDENT, difference, instance.id(), instance.definitionId());
    }

    private static String ids(List<Instance> instances) {
        return instances.stream().map(Instance::id).toList().toString();
    }
}
