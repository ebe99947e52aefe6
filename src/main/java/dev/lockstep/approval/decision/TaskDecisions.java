package dev.lockstep.approval.decision;

import static dev.lockstep.approval.RunningApplications.refuseDelegated;

import dev.lockstep.approval.Application;
import dev.lockstep.approval.ApplicationView;
import dev.lockstep.approval.ApprovalRecord;
import dev.lockstep.approval.ApprovalRecordRepository;
import dev.lockstep.approval.Decision;
import dev.lockstep.approval.RunningApplications;
import dev.lockstep.approval.RunningApplications.HeldTask;
import dev.lockstep.approval.SeparationOfDuties;
import dev.lockstep.approval.todo.TaskProjection;
import dev.lockstep.approval.trail.ApplicationTrail;
import dev.lockstep.approval.todo.TaskView;
import dev.lockstep.platform.security.Caller;
import dev.lockstep.platform.web.ApiException;
import dev.lockstep.transactions.usecase.UseCaseCall;
import dev.lockstep.transactions.workflow.ApprovalProcess;
import dev.lockstep.transactions.workflow.ApprovalProcess.OpenTask;
import dev.lockstep.transactions.workflow.ReturnTarget;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * The approvers' decisions on a task: claim it or give it back (unclaim), approve or reject it, or return the
 * application to an earlier step. Each runs inside its use case's XA transaction: the engine changes the task and
 * moves the process, the todo projection is refreshed from the engine at the end, the approval record is written and
 * the application follows the process, all committed together.
 */
@Service
@Transactional(rollbackFor = Exception.class)
public class TaskDecisions {

    private static final Logger log = LoggerFactory.getLogger(TaskDecisions.class);

    private final RunningApplications running;
    private final ApprovalRecordRepository records;
    private final ApprovalProcess process;
    private final TaskProjection projection;
    private final SeparationOfDuties separation;
    private final ApplicationTrail trail;
    private final Clock clock;

    public TaskDecisions(RunningApplications running, ApprovalRecordRepository records, ApprovalProcess process,
            TaskProjection projection, SeparationOfDuties separation, ApplicationTrail trail, Clock clock) {
        this.running = running;
        this.records = records;
        this.process = process;
        this.projection = projection;
        this.separation = separation;
        this.trail = trail;
        this.clock = clock;
    }

    public TaskView claim(String taskId, UseCaseCall call) {
        HeldTask held = running.holdToDecide(taskId, call.caller());
        call.actsOn(held.application().getId());
        if (held.task().assignee() == null) {
            process.claim(taskId, call.caller().id());
        }
        audit(held, "TASK_CLAIMED", call, separation.decisionChecks(held.application()));
        return refreshed(held);
    }

    /**
     * Gives a claimed task back to its candidate groups: only its assignee may, and not while it is delegated (the
     * delegation is answered to its owner and its delegate alike) nor a countersign task, which the multi-instance
     * assigned to one signer and no group could take.
     */
    public TaskView unclaim(String taskId, UseCaseCall call) {
        Caller caller = call.caller();
        HeldTask held = running.hold(taskId, caller);
        call.actsOn(held.application().getId());
        OpenTask task = held.task();
        if (task.delegated() && (caller.id().equals(task.owner()) || caller.id().equals(task.assignee()))) {
            refuseDelegated(task);
        }
        if (!caller.id().equals(task.assignee())) {
            throw task.assignee() == null && task.isCandidate(caller.groups())
                    ? ApiException.conflict("TASK_NOT_CLAIMED", "Task " + taskId + " is not claimed; there is nothing to unclaim.")
                    : ApiException.forbidden("NOT_THE_ASSIGNEE", "Task " + taskId + " is not assigned to you.");
        }
        if (ApprovalProcess.COUNTERSIGN_TASK.equals(task.taskDefinitionKey())) {
            throw ApiException.conflict("COUNTERSIGN_TASK_NOT_UNCLAIMABLE", "Task " + taskId
                    + " is your countersign vote; it belongs to no group. Transfer it, or ask an administrator to remove you as a signer.");
        }
        process.unclaim(taskId);
        audit(held, "TASK_UNCLAIMED", call, "given back to its candidate groups");
        log.info("{} unclaimed task {} ({}) of application {}", caller.id(), taskId, task.taskDefinitionKey(),
                held.application().getId());
        return refreshed(held);
    }

    /** The end-of-command refresh of the held task's run, and the task as projected now. */
    private TaskView refreshed(HeldTask held) {
        running.refreshTaskViews(held.application().getId(), held.task().processInstanceId(), clock.instant());
        return projection.find(held.task().id()).orElseThrow();
    }

    /** Decides a task; if that ends the process, the application takes the process's explicit outcome. */
    public ApplicationView complete(String taskId, DecisionRequest request, UseCaseCall call) {
        if (request.decision() == Decision.RETURN) {
            throw ApiException.badRequest("RETURN_NEEDS_TARGET",
                    "A return names the step to go back to: POST /api/tasks/" + taskId + "/return.");
        }
        Caller caller = call.caller();
        HeldTask held = running.holdToDecide(taskId, caller);
        call.actsOn(held.application().getId());
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
                call.requestId(), now));
        String action = ApprovalProcess.COUNTERSIGN_TASK.equals(task.taskDefinitionKey()) ? "COUNTERSIGN_VOTED"
                : request.decision() == Decision.APPROVE ? "TASK_APPROVED" : "TASK_REJECTED";
        audit(held, action, call, "decision " + request.decision() + ", " + ApplicationTrail.digest("comment", request.comment())
                + "; " + separation.decisionChecks(application));
        log.info("{} decided {} on task {} ({}) of application {}", caller.id(), request.decision(), task.id(),
                task.taskDefinitionKey(), application.getId());
        return running.settle(application, task.processInstanceId(), now);
    }

    /**
     * The earlier steps the caller may return this task to; only for whoever may decide the task, and
     * refused like the return itself while the task is delegated.
     */
    public List<ReturnTarget> returnTargets(String taskId, Caller caller) {
        OpenTask task = running.offeredTask(taskId, caller);
        refuseDelegated(task);
        return process.returnTargets(taskId);
    }

    /**
     * 驳回: sends the application back from this task to an earlier step. The engine cancels this task
     * and every parallel sibling with a reason naming the return and re-creates the target step; the
     * return is recorded as a RETURN decision with the reason.
     */
    public ApplicationView returnTo(String taskId, ReturnRequest request, UseCaseCall call) {
        Caller caller = call.caller();
        HeldTask held = running.holdToDecide(taskId, caller);
        call.actsOn(held.application().getId());
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
                call.requestId(), now));
        audit(held, "TASK_RETURNED", call, "returned to " + target.name() + " (" + target.id() + ", " + request.mode() + "), "
                + ApplicationTrail.digest("reason", request.reason()) + "; " + separation.decisionChecks(application));
        log.info("{} returned application {} from {} to {} ({})", caller.id(), application.getId(), task.taskDefinitionKey(),
                target.id(), request.mode());
        running.refreshTaskViews(application.getId(), task.processInstanceId(), now);
        return running.view(application.getId());
    }

    /** The entry of the caller's action on the held task, naming its step and task; {@code detail}: what was checked. */
    private void audit(HeldTask held, String action, UseCaseCall call, String detail) {
        OpenTask task = held.task();
        trail.audit(held.application(), action, call, "step " + task.name() + " (" + task.taskDefinitionKey() + "), task "
                + task.id() + ": " + detail, clock.instant());
    }
}
