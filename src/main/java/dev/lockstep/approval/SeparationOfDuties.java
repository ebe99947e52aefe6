package dev.lockstep.approval;

import dev.lockstep.platform.audit.AuditRecord;
import dev.lockstep.platform.audit.AuditTrail;
import dev.lockstep.platform.security.Caller;
import dev.lockstep.platform.security.Roles;
import dev.lockstep.platform.web.ApiException;
import dev.lockstep.transactions.monitoring.TransactionLogContext;
import dev.lockstep.transactions.usecase.UseCaseCall;
import dev.lockstep.transactions.workflow.ApprovalProcess;
import dev.lockstep.transactions.workflow.ApprovalProcess.OpenTask;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The separation-of-duties rules, asked by {@link RunningApplications} for every
 * action on a task and every handover, always with the application's row locked: the decisions it
 * reads from {@code approval_record} (on the use case's own connection and transaction) are then
 * all that any concurrent action on the application committed, so two decisions cannot both pass.
 * <ul>
 * <li>the applicant never acts on, nor is handed, a task of her own application (always);
 * <li>the signers of a countersign are distinct people: nobody holds or casts two votes of one
 * round (always);
 * <li>one person decides at most one step of an application's run (on the risk levels of
 * {@link SeparationProperties});
 * <li>a signer never takes a co-signer's vote away: only an administrator who holds or cast no vote of
 * the round removes a signer (always).
 * </ul>
 */
@Component
@EnableConfigurationProperties(SeparationProperties.class)
public class SeparationOfDuties {

    private static final Logger log = LoggerFactory.getLogger(SeparationOfDuties.class);

    private final SeparationProperties properties;
    private final ApprovalProcess process;
    private final ObjectProvider<AuditTrail> audit;

    @PersistenceContext
    private EntityManager entityManager;

    /** {@code audit}: present in the XA deployment, where a refusal is recorded. */
    SeparationOfDuties(SeparationProperties properties, ApprovalProcess process, ObjectProvider<AuditTrail> audit) {
        this.properties = properties;
        this.process = process;
        this.audit = audit;
    }

    /** For a decision's audit entry: the rules it passed on this application. */
    public String decisionChecks(Application application) {
        return "SoD passed: not the applicant" + (oneStepPerPerson(application)
                ? ", no other step of this run decided (one step per person on " + ruleScope(application) + ")"
                : "; one step per person not required on " + ruleScope(application));
    }

    /** At creation: a countersign listing the applicant among its signers would let her decide her own application. */
    public static void refuseApplicantAsSigner(List<String> signers, String applicantId) {
        if (signers.contains(applicantId)) {
            throw new ApiException(HttpStatus.UNPROCESSABLE_CONTENT, "SIGNER_IS_APPLICANT",
                    "The applicant " + applicantId + " cannot sign her own application; name other signers.");
        }
    }

    /** Every action on a task of the application: never by its applicant, whatever brought the task to her. */
    public void refuseApplicant(Application application, Caller caller) {
        if (application.getApplicantId().equals(caller.id())) {
            throw refused(application, ApiException.forbidden("APPLICANT_CANNOT_DECIDE", "You applied for application "
                    + application.getId() + "; its tasks are decided by others."));
        }
    }

    /** Before the caller claims, decides or returns the task: the one-step rule, read from the stored decisions. */
    public void refuseSecondStep(Application application, OpenTask task, Caller caller) {
        if (oneStepPerPerson(application)) {
            List<String> others = otherStepsDecidedBy(application, task, caller.id());
            if (!others.isEmpty()) {
                throw refused(application, ApiException.forbidden("DECIDED_ANOTHER_STEP", caller.id() + " already decided "
                        + others + " of application " + application.getId() + " and tried " + task.name() + "; on "
                        + ruleScope(application) + " one person decides at most one step. Transfer the task to someone else."));
            }
        }
    }

    /**
     * The one-step rule on this application: by the configured risk levels for a built-in application; always on an
     * application of a registered type, which has no risk level, so that the stricter reading holds where none is set.
     */
    private boolean oneStepPerPerson(Application application) {
        return application.isTyped() || properties.oneStepPerPerson(application.getRiskLevel());
    }

    private static String ruleScope(Application application) {
        return application.isTyped() ? "an application of type " + application.getBusinessType()
                : "a " + application.getRiskLevel() + " application";
    }

    /**
     * Before {@code userId} is handed {@code task} (transfer, delegation, added signer): not the
     * applicant, not someone who already holds or cast a vote of the same countersign round, and
     * where the one-step rule applies, nobody who decided another step.
     */
    public void refuseHandover(Application application, OpenTask task, String userId, Handover handover) {
        if (application.getApplicantId().equals(userId)) {
            throw refused(application, new ApiException(HttpStatus.UNPROCESSABLE_CONTENT, handover.applicantCode, userId
                    + " applied for application " + application.getId() + " and cannot be handed any of its tasks ("
                    + handover + " of " + task.name() + ")."));
        }
        if (ApprovalProcess.COUNTERSIGN_TASK.equals(task.taskDefinitionKey())
                && signsThisRound(application, task.processInstanceId(), task.taskDefinitionKey(), userId)) {
            throw refused(application, new ApiException(HttpStatus.UNPROCESSABLE_CONTENT, "ALREADY_A_SIGNER", userId
                    + " already holds or cast a vote of this countersign; its signers must be distinct people."));
        }
        if (handover.decides && oneStepPerPerson(application)) {
            List<String> others = otherStepsDecidedBy(application, task, userId);
            if (!others.isEmpty()) {
                throw refused(application, new ApiException(HttpStatus.UNPROCESSABLE_CONTENT, "DECIDED_ANOTHER_STEP", userId
                        + " already decided " + others + " of application " + application.getId() + " and cannot be handed "
                        + task.name() + "; on " + ruleScope(application) + " one person decides at most one step."));
            }
        }
    }

    /**
     * Before the caller removes {@code signerId} from the countersign of the held application's run: a signer (who
     * holds or cast a vote of this round) never removes a co-signer, and only an administrator removes signers at all.
     * Read under the application's row lock, like the other rules.
     */
    public void refuseSignerRemoval(Application application, String signerId, Caller caller) {
        if (!caller.id().equals(signerId)
                && signsThisRound(application, application.getProcessInstanceId(), ApprovalProcess.COUNTERSIGN_TASK, caller.id())) {
            throw refused(application, ApiException.forbidden("CANNOT_REMOVE_CO_SIGNER", caller.id()
                    + " signs this countersign of application " + application.getId() + " and cannot take " + signerId
                    + "'s vote away; an administrator removes signers."));
        }
        if (!caller.hasRole(Roles.ADMIN)) {
            throw refused(application, ApiException.forbidden("ONLY_ADMIN_REMOVES_SIGNERS",
                    "Only an administrator removes a countersign signer (" + caller.id() + " tried to remove " + signerId + ")."));
        }
    }

    /**
     * Records who tried what (one SOD_REFUSED entry) and returns the refusal to throw. The use case's transaction rolls
     * back with the refusal, so the entry is written after that, in a short local transaction of its own; a refusal
     * answers the caller whether or not it could be recorded.
     */
    private ApiException refused(Application application, ApiException refusal) {
        AuditTrail trail = audit.getIfAvailable();
        Optional<Caller> caller = Caller.ifAuthenticated();
        if (trail == null || caller.isEmpty()) {
            return refusal;
        }
        AuditRecord record = new AuditRecord(caller.get().id(), AuditRecord.roles(caller.get().roles()), "SOD_REFUSED",
                application.getId(), application.getLifecycleNo(), null,
                UseCaseCall.running().map(UseCaseCall::requestId).orElse(null), TransactionLogContext.currentGtrid(),
                refusal.code() + ": " + refusal.getMessage());
        Runnable append = () -> {
            try {
                trail.append(record);
            } catch (RuntimeException e) {
                log.warn("the refusal {} of {} on application {} is not in the audit trail: {}", refusal.code(),
                        record.actor(), application.getId(), e.toString());
            }
        };
        if (TransactionSynchronizationManager.isSynchronizationActive()) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCompletion(int status) {
                    append.run();
                }
            });
        } else {
            append.run();
        }
        return refusal;
    }

    /** How a task reaches someone; whether they will decide it and which code refuses the applicant. */
    public enum Handover {
        TRANSFER(true, "HANDOVER_TO_APPLICANT"),
        DELEGATE(false, "HANDOVER_TO_APPLICANT"),
        ADD_SIGNER(true, "SIGNER_IS_APPLICANT");

        private final boolean decides;
        private final String applicantCode;

        Handover(boolean decides, String applicantCode) {
            this.decides = decides;
            this.applicantCode = applicantCode;
        }
    }

    private List<String> otherStepsDecidedBy(Application application, OpenTask task, String userId) {
        return entityManager.createQuery("""
                select distinct r.taskDefinitionKey from ApprovalRecord r
                 where r.applicationId = :application and r.lifecycleNo = :lifecycle and r.approverId = :user
                   and r.taskDefinitionKey <> :step""", String.class)
                .setParameter("application", application.getId())
                .setParameter("lifecycle", application.getLifecycleNo())
                .setParameter("user", userId)
                .setParameter("step", task.taskDefinitionKey())
                .getResultList();
    }

    /**
     * Holds an open task of the step (as assignee or as the owner of a delegated one), or cast a vote
     * on it since the run last came back through a return: a return re-creates the step, a new round.
     */
    private boolean signsThisRound(Application application, String processInstanceId, String step, String userId) {
        boolean holds = process.openTasks(processInstanceId).stream()
                .anyMatch(open -> open.taskDefinitionKey().equals(step)
                        && (userId.equals(open.assignee()) || userId.equals(open.owner())));
        return holds || entityManager.createQuery("""
                select count(r) from ApprovalRecord r
                 where r.applicationId = :application and r.lifecycleNo = :lifecycle and r.approverId = :user
                   and r.taskDefinitionKey = :step
                   and not exists (select 1 from ApprovalRecord back where back.applicationId = r.applicationId
                                   and back.lifecycleNo = r.lifecycleNo and back.decision = :returned and back.id >= r.id)""",
                        Long.class)
                .setParameter("application", application.getId())
                .setParameter("lifecycle", application.getLifecycleNo())
                .setParameter("user", userId)
                .setParameter("step", step)
                .setParameter("returned", Decision.RETURN)
                .getSingleResult() > 0;
    }
}
