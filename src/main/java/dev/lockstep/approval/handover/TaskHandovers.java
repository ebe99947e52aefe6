package dev.lockstep.approval.handover;

import static dev.lockstep.approval.RunningApplications.refuseDelegated;

import dev.lockstep.approval.RunningApplications;
import dev.lockstep.approval.RunningApplications.HeldTask;
import dev.lockstep.approval.SeparationOfDuties.Handover;
import dev.lockstep.approval.handover.TaskHandover.Kind;
import dev.lockstep.approval.todo.TaskProjection;
import dev.lockstep.approval.todo.TaskView;
import dev.lockstep.approval.trail.ApplicationTrail;
import dev.lockstep.platform.security.Caller;
import dev.lockstep.platform.security.Roles;
import dev.lockstep.platform.web.ApiException;
import dev.lockstep.transactions.usecase.UseCaseCall;
import dev.lockstep.transactions.workflow.ApprovalProcess;
import dev.lockstep.transactions.workflow.ApprovalProcess.OpenTask;
import java.time.Clock;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Handing a task to someone else: delegate it (委派) and have it resolved back, or transfer it (转办).
 * Each handover is recorded in {@code task_handover} in the same XA transaction as the engine change.
 */
@Service
@Transactional(rollbackFor = Exception.class)
public class TaskHandovers {

    private static final Logger log = LoggerFactory.getLogger(TaskHandovers.class);

    private final RunningApplications running;
    private final TaskHandoverRepository handovers;
    private final ApprovalProcess process;
    private final TaskProjection projection;
    private final ApplicationTrail trail;
    private final Clock clock;

    public TaskHandovers(RunningApplications running, TaskHandoverRepository handovers, ApprovalProcess process,
            TaskProjection projection, ApplicationTrail trail, Clock clock) {
        this.running = running;
        this.handovers = handovers;
        this.process = process;
        this.projection = projection;
        this.trail = trail;
        this.clock = clock;
    }

    /** 委派: the delegate works on the task; the caller stays its owner and decides after it is resolved back. */
    public TaskView delegate(String taskId, HandoverRequest request, UseCaseCall call) {
        Caller caller = call.caller();
        HeldTask held = running.holdOffered(taskId, caller);
        call.actsOn(held.application().getId());
        refuseDelegated(held.task());
        refuseSelf(request, caller);
        running.refuseHandover(held.application(), held.task(), request.userId(), Handover.DELEGATE);
        if (held.task().assignee() == null) {
            process.claim(taskId, caller.id());
        }
        process.delegate(taskId, request.userId());
        return handedOver(held, Kind.DELEGATE, caller.id(), request.userId(), request.comment(), call);
    }

    /** The delegate hands the task back to its owner. */
    public TaskView resolve(String taskId, CommentRequest request, UseCaseCall call) {
        HeldTask held = running.hold(taskId, call.caller());
        call.actsOn(held.application().getId());
        OpenTask task = held.task();
        if (!call.caller().id().equals(task.assignee())) {
            throw ApiException.forbidden("NOT_THE_ASSIGNEE", "Task " + taskId + " is not assigned to you.");
        }
        if (!task.delegated()) {
            throw ApiException.conflict("TASK_NOT_DELEGATED", "Task " + taskId + " was not delegated to you; decide it instead.");
        }
        process.resolve(taskId);
        return handedOver(held, Kind.RESOLVE, call.caller().id(), task.owner(), request.comment(), call);
    }

    /**
     * 转办: the task changes hands. Its holder may transfer it; an administrator may transfer any open
     * task (but decides none by being one: the task goes to someone else, never to the admin).
     */
    public TaskView transfer(String taskId, HandoverRequest request, UseCaseCall call) {
        Caller caller = call.caller();
        HeldTask held = caller.hasRole(Roles.ADMIN) ? running.hold(taskId, caller) : running.holdOffered(taskId, caller);
        call.actsOn(held.application().getId());
        refuseDelegated(held.task());
        refuseSelf(request, caller);
        running.refuseHandover(held.application(), held.task(), request.userId(), Handover.TRANSFER);
        process.transfer(taskId, request.userId());
        return handedOver(held, Kind.TRANSFER, held.task().assignee(), request.userId(), request.comment(), call);
    }

    private static void refuseSelf(HandoverRequest request, Caller caller) {
        if (request.userId().equals(caller.id())) {
            throw ApiException.badRequest("HANDOVER_TO_SELF", "A task cannot be handed to its own holder.");
        }
    }

    private TaskView handedOver(HeldTask held, Kind kind, String from, String to, String comment, UseCaseCall call) {
        Instant now = clock.instant();
        OpenTask task = held.task();
        long applicationId = held.application().getId();
        log.info("{}: {} handed task {} of application {} from {} to {}", kind, call.caller().id(), task.id(), applicationId,
                from, to);
        handovers.saveAndFlush(TaskHandover.of(applicationId, task.processInstanceId(), task.id(), kind, from, to, comment,
                call.caller().id(), call.requestId(), now));
        String action = switch (kind) {
            case DELEGATE -> "TASK_DELEGATED";
            case RESOLVE -> "TASK_RESOLVED";
            case TRANSFER -> "TASK_TRANSFERRED";
            case ADD_SIGNER, REMOVE_SIGNER -> throw new IllegalArgumentException(kind + " is a signer change: SignerChanges");
        };
        trail.audit(held.application(), action, call, "step " + task.name() + " (" + task.taskDefinitionKey() + "), task "
                + task.id() + " from " + from + " to " + to + ", " + ApplicationTrail.digest("comment", comment)
                + (kind == Kind.RESOLVE ? "" : "; SoD passed: " + to + " is not the applicant nor a second signer"), now);
        running.refreshTaskViews(applicationId, task.processInstanceId(), now);
        return projection.find(task.id()).orElseThrow();
    }
}
