package dev.lockstep.approval.countersign;

import dev.lockstep.approval.Application;
import dev.lockstep.approval.ApplicationRepository;
import dev.lockstep.approval.ApplicationView;
import dev.lockstep.approval.RunningApplications;
import dev.lockstep.approval.SeparationOfDuties.Handover;
import dev.lockstep.approval.handover.HandoverRequest;
import dev.lockstep.approval.handover.TaskHandover;
import dev.lockstep.approval.handover.TaskHandover.Kind;
import dev.lockstep.approval.handover.TaskHandoverRepository;
import dev.lockstep.approval.trail.ApplicationEvent;
import dev.lockstep.approval.trail.ApplicationTrail;
import dev.lockstep.platform.security.Caller;
import dev.lockstep.platform.security.Roles;
import dev.lockstep.platform.web.ApiException;
import dev.lockstep.transactions.usecase.UseCaseCall;
import dev.lockstep.transactions.workflow.ApprovalProcess;
import dev.lockstep.transactions.workflow.ApprovalProcess.OpenTask;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * 加签 / 减签: signers added to or taken off an application's running countersign step, each change
 * recorded as a handover and on the application's trail ({@code application_event}) in the same XA
 * transaction as the engine change. A removal is an administrator's act, never a signer's on a
 * co-signer, and never decides the step (the engine command refuses it, see
 * {@code ApprovalProcess#removeSigner}); all checks run under the application's row lock.
 */
@Service
@Transactional(rollbackFor = Exception.class)
public class SignerChanges {

    private static final Logger log = LoggerFactory.getLogger(SignerChanges.class);

    private final ApplicationRepository applications;
    private final RunningApplications running;
    private final TaskHandoverRepository handovers;
    private final ApplicationTrail trail;
    private final ApprovalProcess process;
    private final Clock clock;

    public SignerChanges(ApplicationRepository applications, RunningApplications running, TaskHandoverRepository handovers,
            ApplicationTrail trail, ApprovalProcess process, Clock clock) {
        this.applications = applications;
        this.running = running;
        this.handovers = handovers;
        this.trail = trail;
        this.process = process;
        this.clock = clock;
    }

    /** 加签: one more signer on the running countersign step, with their own task; by an outstanding signer or an admin. */
    public ApplicationView addSigner(long applicationId, HandoverRequest request, UseCaseCall call) {
        Application application = lockUndecidedCountersign(applicationId, call.caller(), null);
        call.actsOn(applicationId);
        String processInstanceId = application.getProcessInstanceId();
        running.refuseHandover(application, countersignTask(processInstanceId).orElseThrow(), request.userId(), Handover.ADD_SIGNER);
        if (process.signers(processInstanceId).contains(request.userId())) {
            throw ApiException.conflict("ALREADY_A_SIGNER", request.userId() + " already signs application " + applicationId + ".");
        }
        process.addSigner(processInstanceId, request.userId());
        OpenTask added = signerTask(processInstanceId, request.userId()).orElseThrow();
        return signersChanged(application, added, Kind.ADD_SIGNER, request.userId(), request.comment(), call);
    }

    /**
     * 减签: an outstanding signer is taken off, by an administrator who signs nothing of this round. Refused when it
     * would decide the step: the step then still waits for a decision (see {@code ApprovalProcess#removeSigner}).
     */
    public ApplicationView removeSigner(long applicationId, HandoverRequest request, UseCaseCall call) {
        Application application = lockUndecidedCountersign(applicationId, call.caller(), request.userId());
        String processInstanceId = application.getProcessInstanceId();
        call.actsOn(applicationId);
        OpenTask removed = signerTask(processInstanceId, request.userId()).orElseThrow(() -> ApiException.conflict(
                "NOT_AN_OUTSTANDING_SIGNER", request.userId() + " has no open countersign task on application " + applicationId + "."));
        process.removeSigner(processInstanceId, removed.id(), "Signer " + request.userId() + " removed by " + call.caller().id(),
                application.getCountersign());
        return signersChanged(application, removed, Kind.REMOVE_SIGNER, request.userId(), request.comment(), call);
    }

    private ApplicationView signersChanged(Application application, OpenTask task, Kind kind, String signer, String comment,
            UseCaseCall call) {
        Instant now = clock.instant();
        boolean added = kind == Kind.ADD_SIGNER;
        log.info("{}: {} changed the signers of application {} ({} {})", kind, call.caller().id(), application.getId(),
                added ? "added" : "removed", signer);
        handovers.saveAndFlush(TaskHandover.of(application.getId(), task.processInstanceId(), task.id(), kind, added ? null : signer,
                added ? signer : null, comment, call.caller().id(), call.requestId(), now));
        String reason = "Signer " + signer + (added ? " added by " : " removed by ") + call.caller().id()
                + (comment == null || comment.isBlank() ? "" : ": " + comment);
        trail.signerChanged(application, added ? ApplicationEvent.Kind.SIGNER_ADDED : ApplicationEvent.Kind.SIGNER_REMOVED, signer,
                task, reason, call, now);
        return running.settle(application, task.processInstanceId(), now);
    }

    /**
     * Locks a countersign application whose countersign step runs and is still open, for the caller to add a signer
     * (only an outstanding signer or an admin) or, given {@code removedSigner}, to remove one (only an admin who signs
     * nothing of this round: {@link RunningApplications#refuseSignerRemoval}).
     */
    private Application lockUndecidedCountersign(long applicationId, Caller caller, String removedSigner) {
        Application application = applications.findById(applicationId).orElseThrow(() -> ApiException.notFound(
                "APPLICATION_NOT_FOUND", "There is no application " + applicationId + "."));
        if (application.getCountersign() == null) {
            throw ApiException.conflict("NOT_A_COUNTERSIGN", "Application " + applicationId + " has no countersign step.");
        }
        if (running.lockForSigners(applicationId, application.getProcessInstanceId(), caller).isEmpty()) {
            throw ApiException.conflict("COUNTERSIGN_DECIDED", "The countersign of application " + applicationId
                    + " is already decided; signers can no longer change.");
        }
        if (removedSigner != null) {
            running.refuseSignerRemoval(application, removedSigner, caller);
        } else if (!caller.hasRole(Roles.ADMIN) && signerTask(application.getProcessInstanceId(), caller.id()).isEmpty()) {
            throw ApiException.forbidden("NOT_A_SIGNER", "Only an outstanding signer or an administrator adds a signer.");
        }
        if (countersignTask(application.getProcessInstanceId()).isEmpty()) {
            throw ApiException.conflict("COUNTERSIGN_NOT_STARTED", "Application " + applicationId
                    + " is still at its manager approval; signers change once the countersign runs.");
        }
        return applications.findById(applicationId).orElseThrow();
    }

    private Optional<OpenTask> countersignTask(String processInstanceId) {
        return process.openTasks(processInstanceId).stream()
                .filter(task -> ApprovalProcess.COUNTERSIGN_TASK.equals(task.taskDefinitionKey()))
                .findFirst();
    }

    /**
     * The open countersign task {@code userId} holds: a signer is whoever holds a signer task now (after a transfer, the
     * person it went to; while delegated, its owner, not the delegate). The engine command removes exactly this task's
     * instance, so the check here and the change there agree on who the signer is.
     */
    private Optional<OpenTask> signerTask(String processInstanceId, String userId) {
        return process.openTasks(processInstanceId).stream()
                .filter(task -> ApprovalProcess.COUNTERSIGN_TASK.equals(task.taskDefinitionKey()) && userId.equals(task.holder()))
                .findFirst();
    }
}
