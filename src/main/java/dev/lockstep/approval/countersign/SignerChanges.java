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
 * recorded as a handover in the same XA transaction as the engine change.
 */
@Service
@Transactional(rollbackFor = Exception.class)
public class SignerChanges {

    private static final Logger log = LoggerFactory.getLogger(SignerChanges.class);

    private final ApplicationRepository applications;
    private final RunningApplications running;
    private final TaskHandoverRepository handovers;
    private final ApprovalProcess process;
    private final Clock clock;

    public SignerChanges(ApplicationRepository applications, RunningApplications running, TaskHandoverRepository handovers,
            ApprovalProcess process, Clock clock) {
        this.applications = applications;
        this.running = running;
        this.handovers = handovers;
        this.process = process;
        this.clock = clock;
    }

    /** 加签: one more signer on the running countersign step, with their own task. */
    public ApplicationView addSigner(long applicationId, HandoverRequest request, UseCaseCall call) {
        Application application = lockUndecidedCountersign(applicationId, call.caller());
        call.actsOn(applicationId);
        String processInstanceId = application.getProcessInstanceId();
        running.refuseHandover(application, countersignTask(processInstanceId).orElseThrow(), request.userId(), Handover.ADD_SIGNER);
        if (process.signers(processInstanceId).contains(request.userId())) {
            throw ApiException.conflict("ALREADY_A_SIGNER", request.userId() + " already signs application " + applicationId + ".");
        }
        process.addSigner(processInstanceId, request.userId());
        OpenTask added = signerTask(processInstanceId, request.userId()).orElseThrow();
        return signersChanged(application, added, Kind.ADD_SIGNER, null, request.userId(), request.comment(), call);
    }

    /** 减签: an outstanding signer is taken off; if that decides the step, the application takes the outcome. */
    public ApplicationView removeSigner(long applicationId, HandoverRequest request, UseCaseCall call) {
        Application application = lockUndecidedCountersign(applicationId, call.caller());
        call.actsOn(applicationId);
        String processInstanceId = application.getProcessInstanceId();
        OpenTask removed = signerTask(processInstanceId, request.userId()).orElseThrow(() -> ApiException.conflict(
                "NOT_AN_OUTSTANDING_SIGNER", request.userId() + " has no open countersign task on application " + applicationId + "."));
        if (process.signers(processInstanceId).size() == 1) {
            throw ApiException.conflict("LAST_SIGNER", "The last signer cannot be removed; terminate or withdraw instead.");
        }
        process.removeSigner(processInstanceId, removed.id(), "Signer " + request.userId() + " removed by " + call.caller().id());
        return signersChanged(application, removed, Kind.REMOVE_SIGNER, request.userId(), null, request.comment(), call);
    }

    private ApplicationView signersChanged(Application application, OpenTask task, Kind kind, String from, String to,
            String comment, UseCaseCall call) {
        Instant now = clock.instant();
        log.info("{}: {} changed the signers of application {} ({} -> {})", kind, call.caller().id(), application.getId(), from, to);
        handovers.saveAndFlush(TaskHandover.of(application.getId(), task.processInstanceId(), task.id(), kind, from, to, comment,
                call.caller().id(), call.requestId(), now));
        return running.settle(application, task.processInstanceId(), now);
    }

    /** Locks a countersign application whose step is still open; only its outstanding signers or an admin change signers. */
    private Application lockUndecidedCountersign(long applicationId, Caller caller) {
        Application application = applications.findById(applicationId).orElseThrow(() -> ApiException.notFound(
                "APPLICATION_NOT_FOUND", "There is no application " + applicationId + "."));
        if (application.getCountersign() == null) {
            throw ApiException.conflict("NOT_A_COUNTERSIGN", "Application " + applicationId + " has no countersign step.");
        }
        if (running.lockForSigners(applicationId, application.getProcessInstanceId(), caller).isEmpty()) {
            throw ApiException.conflict("COUNTERSIGN_DECIDED", "The countersign of application " + applicationId
                    + " is already decided; signers can no longer change.");
        }
        if (!caller.hasRole(Roles.ADMIN) && signerTask(application.getProcessInstanceId(), caller.id()).isEmpty()) {
            throw ApiException.forbidden("NOT_A_SIGNER", "Only an outstanding signer or an administrator changes the signers.");
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
