package dev.lockstep.approval.deadlines;

import dev.lockstep.approval.Application;
import dev.lockstep.approval.RunningApplications;
import dev.lockstep.approval.deadlines.DeadlineProperties.FinalAction;
import dev.lockstep.approval.todo.TaskProjection;
import dev.lockstep.approval.todo.TaskProjectionListener;
import dev.lockstep.approval.trail.ApplicationEvent.Kind;
import dev.lockstep.approval.trail.ApplicationTrail;
import dev.lockstep.publishing.outbox.Outbox;
import dev.lockstep.publishing.outbox.Outbox.DeadlineNotification;
import dev.lockstep.transactions.workflow.ApprovalProcess;
import dev.lockstep.transactions.workflow.ApprovalProcess.OpenTask;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.stream.Stream;
import org.activiti.engine.ManagementService;
import org.activiti.engine.RuntimeService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

/**
 * What a step deadline does when it fires, in one JTA transaction over both databases: the {@link DeadlineScan}'s
 * transaction for a reminder, an escalation or a final deadline, or the engine command of a timer job of a run on an
 * earlier process version, whose steps still had timer boundary events. Like a person's decision it first holds the
 * application (row lock, then the action fence), so a firing and a decision on the same step serialize: whichever
 * commits first wins, and the other finds the step decided (the decision: 409) or, for the firing, the step's tasks
 * no longer open to claim (nothing written) or its timer job gone (rolled back by the engine's optimistic lock).
 * Then, together: the engine change, the todo projection, the trail entry, the notification in the outbox and, for a
 * final action, the application's status.
 */
@Component
@Transactional(propagation = Propagation.MANDATORY)
public class DeadlineFirings {

    private static final Logger log = LoggerFactory.getLogger(DeadlineFirings.class);

    /** The built-in flows' end events for the final actions (processes/*.bpmn20.xml). */
    static final String REJECTED_END = "rejected";
    static final String RETURNED_END = "returnedToApplicant";

    private final RunningApplications running;
    private final ApprovalProcess process;
    private final ApplicationTrail trail;
    private final TaskProjection projection;
    private final TaskProjectionListener projector;
    private final Outbox outbox;
    private final ManagementService management;
    private final RuntimeService runtime;
    private final DeadlineMetrics metrics;
    private final Clock clock;

    DeadlineFirings(RunningApplications running, ApprovalProcess process, ApplicationTrail trail, TaskProjection projection,
            TaskProjectionListener projector, Outbox outbox, ManagementService management, RuntimeService runtime, DeadlineMetrics metrics,
            Clock clock) {
        this.running = running;
        this.process = process;
        this.trail = trail;
        this.projection = projection;
        this.projector = projector;
        this.outbox = outbox;
        this.management = management;
        this.runtime = runtime;
        this.metrics = metrics;
        this.clock = clock;
    }

    /**
     * The step's candidates are reminded; its open tasks are overdue from now on. Nothing, when the step's reminder is
     * claimed already: by another node's scan, or by the reminder timer of a run on an earlier process version.
     * Returns whether it reminded.
     */
    boolean remind(Firing firing) {
        Application application = hold(firing);
        Instant now = clock.instant();
        if (projection.claimReminder(firing.processInstanceId(), firing.step(), now) == 0) {
            log.debug("reminder of step {} on application {} was claimed already", firing.step(), application.getId());
            return false;
        }
        List<OpenTask> tasks = tasksOf(firing);
        trail.deadline(application, Kind.REMINDED, firing.stepName() + " is overdue: its candidates were reminded", tasks, now);
        notify(application, firing, Kind.REMINDED, tasks, candidateGroups(tasks), assignees(tasks), now);
        return true;
    }

    /** The step's open tasks are offered to the escalation group as well; nothing when claimed already, as for a reminder. */
    boolean escalate(Firing firing, String group) {
        Application application = hold(firing);
        Instant now = clock.instant();
        if (projection.claimEscalation(firing.processInstanceId(), firing.step(), now) == 0) {
            log.debug("escalation of step {} on application {} was claimed already", firing.step(), application.getId());
            return false;
        }
        List<OpenTask> tasks = tasksOf(firing);
        tasks.forEach(task -> management.executeCommand(new EscalateCmd(task.id(), group, projector)));
        running.refreshTaskViews(application.getId(), firing.processInstanceId(), now);
        trail.deadline(application, Kind.ESCALATED, firing.stepName() + " is overdue: escalated to " + group, tasks, now);
        notify(application, firing, Kind.ESCALATED, tasks, List.of(group), List.of(), now);
        return true;
    }

    /**
     * The step's final deadline, found passed by the scan: the run ends at the end event recording the outcome of the
     * policy's final action for the run's risk level, its tasks cancelled, and the application takes that outcome in
     * the same transaction. Nothing, when the step's final deadline is claimed already; returns whether it ended it.
     */
    boolean expire(Firing firing, Function<String, FinalAction> actionAtRiskLevel) {
        Application application = hold(firing);
        if (projection.claimFinalDeadline(firing.processInstanceId(), firing.step()) == 0) {
            log.debug("final deadline of step {} on application {} was claimed already", firing.step(), application.getId());
            return false;
        }
        FinalAction action = actionAtRiskLevel.apply((String) runtime.getVariable(firing.processInstanceId(), Deadlines.RISK_LEVEL));
        List<OpenTask> tasks = tasksOf(firing);
        management.executeCommand(new EndRunAtCmd(firing.processInstanceId(), action == FinalAction.REJECT ? REJECTED_END : RETURNED_END,
                "final deadline of " + firing.step() + " passed"));
        close(application, firing, action, tasks);
        return true;
    }

    /**
     * The interrupting timer of a run on an earlier process version has cancelled the step and its flow leads to the
     * end event recording the outcome this action stands for; the application takes that outcome in the same
     * transaction.
     */
    void end(Firing firing, FinalAction action) {
        close(hold(firing), firing, action, tasksOf(firing));
    }

    private void close(Application application, Firing firing, FinalAction action, List<OpenTask> tasks) {
        Instant now = clock.instant();
        Kind kind = action == FinalAction.REJECT ? Kind.OVERDUE_REJECTED : Kind.OVERDUE_RETURNED;
        String what = action == FinalAction.REJECT ? "the application was rejected" : "the application was returned to its applicant";
        trail.deadline(application, kind, firing.stepName() + " passed its final deadline: " + what, tasks, now);
        notify(application, firing, kind, tasks, candidateGroups(tasks), List.of(application.getApplicantId()), now);
        running.closeAs(application, firing.processInstanceId(), action == FinalAction.REJECT ? "REJECTED" : "RETURNED", now);
    }

    /**
     * The application's row lock and the action fence, as for a person's decision. An application not
     * (or no longer) approving under this run fails the firing: the engine retries it later, and a
     * retry finds the timer gone once whatever ended the run has committed in the workflow database.
     */
    private Application hold(Firing firing) {
        return running.lockForTimer(firing.applicationId(), firing.processInstanceId()).orElseThrow(() -> new IllegalStateException(
                "deadline of step " + firing.step() + " fired for application " + firing.applicationId()
                        + ", which is not being approved under process " + firing.processInstanceId()));
    }

    private List<OpenTask> tasksOf(Firing firing) {
        return process.openTasks(firing.processInstanceId()).stream()
                .filter(task -> task.taskDefinitionKey().equals(firing.step())).toList();
    }

    private void notify(Application application, Firing firing, Kind kind, List<OpenTask> tasks, List<String> groups,
            List<String> users, Instant now) {
        outbox.notifyDeadline(new DeadlineNotification(Application.BUSINESS_TYPE, application.getId(), application.getLifecycleNo(),
                kind.name(), firing.step(), tasks.stream().map(OpenTask::id).toList(), groups, users), now);
        metrics.firedOnCommit(kind);
        log.info("deadline of step {} on application {}: {}", firing.step(), application.getId(), kind);
    }

    private static List<String> candidateGroups(List<OpenTask> tasks) {
        return tasks.stream().flatMap(task -> task.candidateGroups().stream()).distinct().sorted().toList();
    }

    private static List<String> assignees(List<OpenTask> tasks) {
        return tasks.stream().flatMap(task -> Stream.of(task.assignee())).filter(Objects::nonNull).distinct().sorted().toList();
    }
}
