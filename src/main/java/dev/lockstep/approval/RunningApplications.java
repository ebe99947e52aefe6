package dev.lockstep.approval;

import dev.lockstep.approval.SeparationOfDuties.Handover;
import dev.lockstep.approval.todo.TaskProjectionRefresh;
import dev.lockstep.history.archive.HistoryArchive;
import dev.lockstep.platform.AreaApi;
import dev.lockstep.platform.security.Caller;
import dev.lockstep.platform.web.ApiException;
import dev.lockstep.publishing.outbox.Outbox;
import dev.lockstep.transactions.contention.ApplicationWaiters;
import dev.lockstep.transactions.contention.RunningTransactions;
import dev.lockstep.transactions.workflow.ActionFence;
import dev.lockstep.transactions.workflow.ApprovalProcess;
import dev.lockstep.transactions.workflow.ApprovalProcess.OpenTask;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Holds a running application for the action that acts on it, inside the action's XA transaction:
 * the business row lock, which serializes actions (parallel tasks meet at a join), then the
 * {@link ActionFence}, so that what the action reads from the workflow includes everything its
 * predecessor committed — with at most a bounded number of actions per application waiting for both
 * ({@link ApplicationWaiters}); and, once the action has moved the process, the application's task
 * summary or its final status taken from the process's explicit outcome (an approval also writes
 * its publish event to the outbox, in the same transaction). Every action on a task and every
 * handover passes {@link SeparationOfDuties} here, under that lock.
 */
@Component
@AreaApi
public class RunningApplications {

    private static final Logger log = LoggerFactory.getLogger(RunningApplications.class);

    private final ApplicationRepository applications;
    private final BusinessProcessBindingRepository bindings;
    private final ApprovalProcess process;
    private final ActionFence fence;
    private final ApplicationWaiters waiters;
    private final RunningTransactions running;
    private final TaskSummaries summaries;
    private final Outbox outbox;
    private final SeparationOfDuties separation;
    private final HistoryArchive archive;
    private final TaskProjectionRefresh projection;
    private final Clock clock;

    RunningApplications(ApplicationRepository applications, BusinessProcessBindingRepository bindings,
            ApprovalProcess process, ActionFence fence, ApplicationWaiters waiters, RunningTransactions running,
            TaskSummaries summaries, Outbox outbox,
            SeparationOfDuties separation, HistoryArchive archive, TaskProjectionRefresh projection, Clock clock) {
        this.applications = applications;
        this.bindings = bindings;
        this.process = process;
        this.fence = fence;
        this.waiters = waiters;
        this.running = running;
        this.summaries = summaries;
        this.outbox = outbox;
        this.separation = separation;
        this.archive = archive;
        this.projection = projection;
        this.clock = clock;
    }

    /**
     * Refuses any action on an application an open reconciliation incident holds (409 APPLICATION_FROZEN);
     * call it with the application's row lock held.
     */
    public void requireNotFrozen(long applicationId) {
        Long incident = applications.openIncidentOf(applicationId);
        if (incident != null) {
            throw ApiException.conflict("APPLICATION_FROZEN", "Application " + applicationId
                    + " is frozen by reconciliation incident " + incident + " until that incident is closed.");
        }
    }

    /** The task's application locked, and the task as it is now that any concurrent action on it has committed. */
    public record HeldTask(Application application, OpenTask task) {
    }

    /** The application as locked, or empty when it is no longer being approved under this run. */
    public Optional<Application> lock(long applicationId, String processInstanceId) {
        return lock(applicationId, processInstanceId, false);
    }

    /** As {@link #lock}, for an action inside a timer job (a step deadline): see {@link ActionFence#enterWithoutWaiting}. */
    public Optional<Application> lockForTimer(long applicationId, String processInstanceId) {
        return lock(applicationId, processInstanceId, true);
    }

    private Optional<Application> lock(long applicationId, String processInstanceId, boolean inTimerJob) {
        try (ApplicationWaiters.Slot waiting = waiters.enter(applicationId);
                RunningTransactions.Wait forOthers = running.waitingForAnother()) {
            if (applications.lockRunningStep(applicationId, processInstanceId, clock.instant()) == 0) {
                return Optional.empty();
            }
            requireNotFrozen(applicationId);
            Application locked = applications.findById(applicationId).orElseThrow();
            if (inTimerJob) {
                fence.enterWithoutWaiting(processInstanceId, locked.getActionSeq());
            } else {
                fence.enter(processInstanceId, locked.getActionSeq());
            }
            return Optional.of(locked);
        }
    }

    /**
     * Locks the task's application for this action, then re-reads the task: only now does it show what
     * any concurrent action on the application committed. Refused to the application's applicant.
     */
    public HeldTask hold(String taskId, Caller caller) {
        String processInstanceId = openTask(taskId).processInstanceId();
        long applicationId = applicationOf(processInstanceId);
        Application application = lock(applicationId, processInstanceId).orElseThrow(() -> ApiException.conflict(
                "APPLICATION_NOT_RUNNING", "Application " + applicationId + " is no longer being approved."));
        separation.refuseApplicant(application, caller);
        return new HeldTask(application, openTask(taskId));
    }

    /** As {@link #hold}, for a caller the task must be assigned or offered to. */
    public HeldTask holdOffered(String taskId, Caller caller) {
        HeldTask held = hold(taskId, caller);
        requireOffered(held.task(), caller);
        return held;
    }

    /** As {@link #holdOffered}, for a caller about to claim, decide or return it: the one-step rule too. */
    public HeldTask holdToDecide(String taskId, Caller caller) {
        HeldTask held = holdOffered(taskId, caller);
        separation.refuseSecondStep(held.application(), held.task(), caller);
        return held;
    }

    /** The application locked for a change of its countersign's signers: never by its applicant. */
    public Optional<Application> lockForSigners(long applicationId, String processInstanceId, Caller caller) {
        Optional<Application> locked = lock(applicationId, processInstanceId);
        locked.ifPresent(application -> separation.refuseApplicant(application, caller));
        return locked;
    }

    /** Before the held application's {@code task} goes to {@code userId}: see {@link SeparationOfDuties#refuseHandover}. */
    public void refuseHandover(Application application, OpenTask task, String userId, Handover handover) {
        separation.refuseHandover(application, task, userId, handover);
    }

    /** Before the held application's signer {@code signerId} is removed: see {@link SeparationOfDuties#refuseSignerRemoval}. */
    public void refuseSignerRemoval(Application application, String signerId, Caller caller) {
        separation.refuseSignerRemoval(application, signerId, caller);
    }

    /** The task for a read on behalf of whoever may decide it (nothing locked): refused to the applicant as well. */
    public OpenTask offeredTask(String taskId, Caller caller) {
        OpenTask task = openTask(taskId);
        separation.refuseApplicant(applications.findById(applicationOf(task.processInstanceId())).orElseThrow(), caller);
        requireOffered(task, caller);
        return task;
    }

    private long applicationOf(String processInstanceId) {
        return Long.parseLong(process.businessKeyOf(processInstanceId));
    }

    public OpenTask openTask(String taskId) {
        // a task of an archived process is no longer in the engine's history, but it did end
        return process.findTask(taskId).orElseThrow(() -> process.taskFinished(taskId) || archive.hasTask(taskId)
                ? ApiException.conflict("TASK_ALREADY_COMPLETED", "Task " + taskId + " has already been completed.")
                : ApiException.notFound("TASK_NOT_FOUND", "There is no task " + taskId + "."));
    }

    public static void requireOffered(OpenTask task, Caller caller) {
        if (!task.offeredTo(caller.id(), caller.groups())) {
            if (task.isCandidate(caller.groups())) {
                throw ApiException.conflict("TASK_CLAIMED_BY_OTHER", "Task " + task.id() + " is claimed by " + task.assignee() + ".");
            }
            throw ApiException.forbidden("NOT_A_CANDIDATE", "Task " + task.id() + " is not assigned or offered to you.");
        }
    }

    public static void refuseDelegated(OpenTask task) {
        if (task.delegated()) {
            throw ApiException.conflict("TASK_DELEGATED", "Task " + task.id() + " is delegated to " + task.assignee()
                    + "; the delegate resolves it back to " + task.owner() + ", who then decides.");
        }
    }

    /**
     * After an action that leaves the process running: the todo projection rows of the run's tasks and the
     * application's summary of its open tasks, both from what the engine holds now.
     */
    public void refreshTaskViews(long applicationId, String processInstanceId, Instant now) {
        reproject(applicationId, processInstanceId);
        applications.updateTaskSummary(applicationId, summaryOf(processInstanceId), now);
    }

    /**
     * At the end of every task command: the projection rows of the run's tasks (open ones, and those the command
     * ended) written from the engine's state, whatever events the engine fired ({@link TaskProjectionRefresh}).
     */
    public void reproject(long applicationId, String processInstanceId) {
        projection.refresh(Long.toString(applicationId), processInstanceId);
    }

    /** The display summary of the run's open tasks. */
    public String summaryOf(String processInstanceId) {
        return summaries.of(process.openTasks(processInstanceId));
    }

    /**
     * After an action that may have ended the process: the task views if it still runs, else the
     * projection rows it ended and the application takes the process's explicit outcome.
     */
    public ApplicationView settle(Application application, String processInstanceId, Instant now) {
        if (process.isRunning(processInstanceId)) {
            refreshTaskViews(application.getId(), processInstanceId, now);
        } else {
            reproject(application.getId(), processInstanceId);
            closeWithOutcome(application, processInstanceId, now);
        }
        return view(application.getId());
    }

    public ApplicationView view(long applicationId) {
        return ApplicationView.of(applications.findById(applicationId).orElseThrow());
    }

    private void closeWithOutcome(Application application, String processInstanceId, Instant now) {
        // an archived process keeps its outcome in the archive
        String outcome = process.outcome(processInstanceId).or(() -> archive.outcome(processInstanceId))
                .orElseThrow(() -> new IllegalStateException("process " + processInstanceId
                        + " ended without an outcome variable; refusing to guess the result"));
        closeAs(application, processInstanceId, outcome, now);
    }

    /**
     * For a step deadline's firing, which ends the run at an end event recording {@code outcome} (the scan's end of the
     * run, or an old version's timer inside its engine command): the application takes that outcome in the same
     * transaction.
     */
    public void closeAs(Application application, String processInstanceId, String outcome, Instant now) {
        ProcessOutcome result = ProcessOutcome.valueOf(outcome);
        bindings.end(processInstanceId, result.bindingStatus(), now);
        boolean publishes = application.publishes();
        applications.close(application.getId(), result.approvalStatus(), publishes ? result.publishStatus() : PublishStatus.NOT_STARTED,
                null, now);
        if (publishes && result.approvalStatus() == ApprovalStatus.APPROVED) {
            // same XA transaction: the publish event exists exactly when the approval committed
            outbox.requestAssetPublication(new Outbox.AssetPublication(Application.BUSINESS_TYPE, application.getId(),
                    application.getAssetId(), application.getTitle(), application.getLifecycleNo()), now);
        }
        log.info("application {} {}: its process ended with outcome {}", application.getId(), result.approvalStatus(), outcome);
    }
}
