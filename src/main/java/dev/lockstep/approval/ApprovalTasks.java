package dev.lockstep.approval;

import dev.lockstep.approval.TaskHandover.Kind;
import dev.lockstep.publish.Outbox;
import dev.lockstep.security.Caller;
import dev.lockstep.security.Roles;
import dev.lockstep.todo.TaskProjection;
import dev.lockstep.todo.TaskView;
import dev.lockstep.web.ApiException;
import dev.lockstep.workflow.ApprovalProcess;
import dev.lockstep.workflow.ApprovalProcess.OpenTask;
import dev.lockstep.workflow.ReturnTarget;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * The approvers' use cases. Each is one JTA transaction: the engine changes the task and moves the
 * process (its event listeners update the todo projection), the business records are written and
 * the business status follows the process outcome, all committed together through two-phase commit.
 */
@Service
@Transactional(rollbackFor = Exception.class)
public class ApprovalTasks {

    private static final Logger log = LoggerFactory.getLogger(ApprovalTasks.class);

    private final ApplicationRepository applications;
    private final BusinessProcessBindingRepository bindings;
    private final ApprovalRecordRepository records;
    private final TaskHandoverRepository handovers;
    private final ApprovalProcess process;
    private final RunningStepLock runningStep;
    private final TaskProjection projection;
    private final TaskSummaries summaries;
    private final UseCaseJournal journal;
    private final Outbox outbox;
    private final Clock clock;

    public ApprovalTasks(ApplicationRepository applications, BusinessProcessBindingRepository bindings,
            ApprovalRecordRepository records, TaskHandoverRepository handovers, ApprovalProcess process,
            RunningStepLock runningStep, TaskProjection projection, TaskSummaries summaries, UseCaseJournal journal, Outbox outbox,
            Clock clock) {
        this.applications = applications;
        this.bindings = bindings;
        this.records = records;
        this.handovers = handovers;
        this.process = process;
        this.runningStep = runningStep;
        this.projection = projection;
        this.summaries = summaries;
        this.journal = journal;
        this.outbox = outbox;
        this.clock = clock;
    }

    public TaskView claim(String taskId, Caller caller) {
        Held held = holdOffered(taskId, caller);
        journal.enter("claim", held.application().getId(), null, caller);
        if (held.task().assignee() == null) {
            process.claim(taskId, caller.id());
        }
        refreshSummary(held, clock.instant());
        return projection.find(taskId).orElseThrow();
    }

    /** Decides a task; if that ends the process, the application takes the process's explicit outcome. */
    public ApplicationView complete(String taskId, DecisionRequest request, String requestId, Caller caller) {
        if (request.decision() == Decision.RETURN) {
            throw ApiException.badRequest("RETURN_NEEDS_TARGET",
                    "A return names the step to go back to: POST /api/tasks/" + taskId + "/return.");
        }
        Held held = holdOffered(taskId, caller);
        journal.enter("complete", held.application().getId(), requestId, caller);
        OpenTask task = held.task();
        refuseDelegated(task);
        if (task.assignee() == null) {
            process.claim(taskId, caller.id());
        }
        process.complete(taskId, request.decision().name());
        Instant now = clock.instant();
        Application application = held.application();
        records.saveAndFlush(ApprovalRecord.of(application.getId(), application.getLifecycleNo(), task.processInstanceId(),
                task.id(), task.taskDefinitionKey(), task.name(), request.decision(), request.comment(), caller.id(),
                requestId, now));
        log.info("{} decided {} on task {} ({}) of application {}", caller.id(), request.decision(), task.id(),
                task.taskDefinitionKey(), application.getId());
        if (process.isRunning(task.processInstanceId())) {
            refreshSummary(held, now);
        } else {
            closeWithOutcome(application, task.processInstanceId(), now);
        }
        return ApplicationView.of(applications.findById(application.getId()).orElseThrow());
    }

    /**
     * The earlier steps the caller may return this task to; only for whoever may decide the task, and
     * refused like the return itself while the task is delegated.
     */
    public List<ReturnTarget> returnTargets(String taskId, Caller caller) {
        OpenTask task = openTask(taskId);
        requireOffered(task, caller);
        refuseDelegated(task);
        return process.returnTargets(taskId);
    }

    /**
     * 驳回: sends the application back from this task to an earlier step. The engine cancels this task
     * and every parallel sibling with a reason naming the return and re-creates the target step; the
     * return is recorded as a RETURN decision with the reason.
     */
    public ApplicationView returnTo(String taskId, ReturnRequest request, String requestId, Caller caller) {
        Held held = holdOffered(taskId, caller);
        journal.enter("return", held.application().getId(), requestId, caller);
        OpenTask task = held.task();
        refuseDelegated(task);
        ReturnTarget target = process.returnTargets(taskId).stream()
                .filter(allowed -> allowed.id().equals(request.targetActivityId()))
                .findFirst()
                .orElseThrow(() -> new ApiException(HttpStatus.UNPROCESSABLE_CONTENT, "RETURN_TARGET_NOT_ALLOWED",
                        "Task " + taskId + " (" + task.taskDefinitionKey() + ") cannot be returned to '"
                                + request.targetActivityId() + "'; GET /api/tasks/" + taskId + "/return-targets lists the steps it can."));
        if (task.assignee() == null) {
            process.claim(taskId, caller.id());
        }
        process.returnTo(taskId, target.id(), request.mode(),
                "Returned to " + target.name() + " (" + request.mode() + ") by " + caller.id() + ": " + request.reason());
        Instant now = clock.instant();
        Application application = held.application();
        records.saveAndFlush(ApprovalRecord.returned(application.getId(), application.getLifecycleNo(), task.processInstanceId(),
                task.id(), task.taskDefinitionKey(), task.name(), target.id(), request.mode(), request.reason(), caller.id(),
                requestId, now));
        log.info("{} returned application {} from {} to {} ({})", caller.id(), application.getId(), task.taskDefinitionKey(),
                target.id(), request.mode());
        refreshSummary(held, now);
        return ApplicationView.of(applications.findById(application.getId()).orElseThrow());
    }

    /** 委派: the delegate works on the task; the caller stays its owner and decides after it is resolved back. */
    public TaskView delegate(String taskId, HandoverRequest request, String requestId, Caller caller) {
        Held held = holdOffered(taskId, caller);
        journal.enter("delegate", held.application().getId(), requestId, caller);
        refuseDelegated(held.task());
        refuseSelf(request, caller);
        if (held.task().assignee() == null) {
            process.claim(taskId, caller.id());
        }
        process.delegate(taskId, request.userId());
        return handedOver(held, Kind.DELEGATE, caller.id(), request.userId(), request.comment(), requestId, caller);
    }

    /** The delegate hands the task back to its owner. */
    public TaskView resolve(String taskId, CommentRequest request, String requestId, Caller caller) {
        Held held = hold(taskId);
        journal.enter("resolve", held.application().getId(), requestId, caller);
        OpenTask task = held.task();
        if (!caller.id().equals(task.assignee())) {
            throw ApiException.forbidden("NOT_THE_ASSIGNEE", "Task " + taskId + " is not assigned to you.");
        }
        if (!task.delegated()) {
            throw ApiException.conflict("TASK_NOT_DELEGATED", "Task " + taskId + " was not delegated to you; decide it instead.");
        }
        process.resolve(taskId);
        return handedOver(held, Kind.RESOLVE, caller.id(), task.owner(), request.comment(), requestId, caller);
    }

    /** 转办: the task changes hands. Its holder may transfer it; an administrator may transfer any open task. */
    public TaskView transfer(String taskId, HandoverRequest request, String requestId, Caller caller) {
        Held held = caller.hasRole(Roles.ADMIN) ? hold(taskId) : holdOffered(taskId, caller);
        journal.enter("transfer", held.application().getId(), requestId, caller);
        refuseDelegated(held.task());
        refuseSelf(request, caller);
        process.transfer(taskId, request.userId());
        return handedOver(held, Kind.TRANSFER, held.task().assignee(), request.userId(), request.comment(), requestId, caller);
    }

    /** 加签: one more signer on the running countersign step, with their own task. */
    public ApplicationView addSigner(long applicationId, HandoverRequest request, String requestId, Caller caller) {
        Application application = lockUndecidedCountersign(applicationId, caller);
        journal.enter("addSigner", applicationId, requestId, caller);
        String processInstanceId = application.getProcessInstanceId();
        if (process.signers(processInstanceId).contains(request.userId())) {
            throw ApiException.conflict("ALREADY_A_SIGNER", request.userId() + " already signs application " + applicationId + ".");
        }
        process.addSigner(processInstanceId, request.userId());
        OpenTask added = signerTask(processInstanceId, request.userId()).orElseThrow();
        return signersChanged(application, added, Kind.ADD_SIGNER, null, request.userId(), request.comment(), requestId, caller);
    }

    /** 减签: an outstanding signer is taken off; if that decides the step, the application takes the outcome. */
    public ApplicationView removeSigner(long applicationId, HandoverRequest request, String requestId, Caller caller) {
        Application application = lockUndecidedCountersign(applicationId, caller);
        journal.enter("removeSigner", applicationId, requestId, caller);
        String processInstanceId = application.getProcessInstanceId();
        OpenTask removed = signerTask(processInstanceId, request.userId()).orElseThrow(() -> ApiException.conflict(
                "NOT_AN_OUTSTANDING_SIGNER", request.userId() + " has no open countersign task on application " + applicationId + "."));
        if (process.signers(processInstanceId).size() == 1) {
            throw ApiException.conflict("LAST_SIGNER", "The last signer cannot be removed; terminate or withdraw instead.");
        }
        process.removeSigner(processInstanceId, request.userId(), "Signer " + request.userId() + " removed by " + caller.id());
        return signersChanged(application, removed, Kind.REMOVE_SIGNER, request.userId(), null, request.comment(), requestId, caller);
    }

    private ApplicationView signersChanged(Application application, OpenTask task, Kind kind, String from, String to,
            String comment, String requestId, Caller caller) {
        Instant now = clock.instant();
        log.info("{}: {} changed the signers of application {} ({} -> {})", kind, caller.id(), application.getId(), from, to);
        handovers.saveAndFlush(TaskHandover.of(application.getId(), task.processInstanceId(), task.id(), kind, from, to, comment,
                caller.id(), requestId, now));
        if (process.isRunning(task.processInstanceId())) {
            refreshSummary(new Held(application, task), now);
        } else {
            closeWithOutcome(application, task.processInstanceId(), now);
        }
        return ApplicationView.of(applications.findById(application.getId()).orElseThrow());
    }

    /** Locks a countersign application whose step is still open; only its outstanding signers or an admin change signers. */
    private Application lockUndecidedCountersign(long applicationId, Caller caller) {
        Application application = applications.findById(applicationId).orElseThrow(() -> ApiException.notFound(
                "APPLICATION_NOT_FOUND", "There is no application " + applicationId + "."));
        if (application.getCountersign() == null) {
            throw ApiException.conflict("NOT_A_COUNTERSIGN", "Application " + applicationId + " has no countersign step.");
        }
        if (runningStep.lock(applicationId, application.getProcessInstanceId()).isEmpty()) {
            throw ApiException.conflict("COUNTERSIGN_DECIDED", "The countersign of application " + applicationId
                    + " is already decided; signers can no longer change.");
        }
        if (!caller.hasRole(Roles.ADMIN) && signerTask(application.getProcessInstanceId(), caller.id()).isEmpty()) {
            throw ApiException.forbidden("NOT_A_SIGNER", "Only an outstanding signer or an administrator changes the signers.");
        }
        if (process.openTasks(application.getProcessInstanceId()).stream()
                .noneMatch(task -> ApprovalProcess.COUNTERSIGN_TASK.equals(task.taskDefinitionKey()))) {
            throw ApiException.conflict("COUNTERSIGN_NOT_STARTED", "Application " + applicationId
                    + " is still at its manager approval; signers change once the countersign runs.");
        }
        return applications.findById(applicationId).orElseThrow();
    }

    private Optional<OpenTask> signerTask(String processInstanceId, String userId) {
        return process.openTasks(processInstanceId).stream()
                .filter(task -> ApprovalProcess.COUNTERSIGN_TASK.equals(task.taskDefinitionKey()) && userId.equals(task.assignee()))
                .findFirst();
    }

    private TaskView handedOver(Held held, Kind kind, String from, String to, String comment, String requestId, Caller caller) {
        Instant now = clock.instant();
        OpenTask task = held.task();
        log.info("{}: {} handed task {} of application {} from {} to {}", kind, caller.id(), task.id(),
                held.application().getId(), from, to);
        handovers.saveAndFlush(TaskHandover.of(held.application().getId(), task.processInstanceId(), task.id(), kind, from, to,
                comment, caller.id(), requestId, now));
        refreshSummary(held, now);
        return projection.find(task.id()).orElseThrow();
    }

    private static void refuseDelegated(OpenTask task) {
        if (task.delegated()) {
            throw ApiException.conflict("TASK_DELEGATED", "Task " + task.id() + " is delegated to " + task.assignee()
                    + "; the delegate resolves it back to " + task.owner() + ", who then decides.");
        }
    }

    private static void refuseSelf(HandoverRequest request, Caller caller) {
        if (request.userId().equals(caller.id())) {
            throw ApiException.badRequest("HANDOVER_TO_SELF", "A task cannot be handed to its own holder.");
        }
    }

    private void refreshSummary(Held held, Instant now) {
        applications.updateTaskSummary(held.application().getId(),
                summaries.of(process.openTasks(held.task().processInstanceId())), now);
    }

    private void closeWithOutcome(Application application, String processInstanceId, Instant now) {
        String outcome = process.outcome(processInstanceId).orElseThrow(() -> new IllegalStateException(
                "process " + processInstanceId + " ended without an outcome variable; refusing to guess the result"));
        ProcessOutcome result = ProcessOutcome.valueOf(outcome);
        bindings.end(processInstanceId, result.bindingStatus(), now);
        applications.close(application.getId(), result.approvalStatus(), result.publishStatus(), null, now);
        if (result.approvalStatus() == ApprovalStatus.APPROVED) {
            // same XA transaction: the event exists exactly when the approval committed
            outbox.requestAssetPublication(new Outbox.AssetPublication(Application.BUSINESS_TYPE, application.getId(),
                    application.getAssetId(), application.getTitle(), application.getLifecycleNo()), now);
        }
        log.info("application {} {}: its process ended with outcome {}", application.getId(), result.approvalStatus(), outcome);
    }

    /** The task's application locked, and the task as it is now that any concurrent action on it has committed. */
    private record Held(Application application, OpenTask task) {
    }

    private Held holdOffered(String taskId, Caller caller) {
        Held held = hold(taskId);
        requireOffered(held.task(), caller);
        return held;
    }

    /**
     * Locks the task's application for this action, then re-reads the task: only now does it show what
     * any concurrent action on the application committed.
     */
    private Held hold(String taskId) {
        String processInstanceId = openTask(taskId).processInstanceId();
        long applicationId = Long.parseLong(process.businessKeyOf(processInstanceId));
        Application application = runningStep.lock(applicationId, processInstanceId).orElseThrow(() -> ApiException.conflict(
                "APPLICATION_NOT_RUNNING", "Application " + applicationId + " is no longer being approved."));
        return new Held(application, openTask(taskId));
    }

    private OpenTask openTask(String taskId) {
        return process.findTask(taskId).orElseThrow(() -> process.taskFinished(taskId)
                ? ApiException.conflict("TASK_ALREADY_COMPLETED", "Task " + taskId + " has already been completed.")
                : ApiException.notFound("TASK_NOT_FOUND", "There is no task " + taskId + "."));
    }

    private static void requireOffered(OpenTask task, Caller caller) {
        if (!task.offeredTo(caller.id(), caller.groups())) {
            if (task.isCandidate(caller.groups())) {
                throw ApiException.conflict("TASK_CLAIMED_BY_OTHER", "Task " + task.id() + " is claimed by " + task.assignee() + ".");
            }
            throw ApiException.forbidden("NOT_A_CANDIDATE", "Task " + task.id() + " is not assigned or offered to you.");
        }
    }
}
