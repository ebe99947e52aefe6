package dev.lockstep.approval.application;

import dev.lockstep.approval.Application;
import dev.lockstep.approval.ApplicationRepository;
import dev.lockstep.approval.ApplicationView;
import dev.lockstep.approval.ApprovalRecordRepository;
import dev.lockstep.approval.ApprovalStatus;
import dev.lockstep.approval.BindingStatus;
import dev.lockstep.approval.BusinessProcessBinding;
import dev.lockstep.approval.BusinessProcessBindingRepository;
import dev.lockstep.approval.PublishStatus;
import dev.lockstep.approval.RunningApplications;
import dev.lockstep.approval.SeparationOfDuties;
import dev.lockstep.approval.definitions.RegisteredTypes;
import dev.lockstep.approval.definitions.RegisteredTypes.ActiveDefinition;
import dev.lockstep.approval.trail.ApplicationEvent.Kind;
import dev.lockstep.approval.trail.ApplicationTrail;
import dev.lockstep.platform.security.Caller;
import dev.lockstep.platform.security.Roles;
import dev.lockstep.platform.web.ApiException;
import dev.lockstep.transactions.businessonly.BusinessOnlyTransactions;
import dev.lockstep.transactions.monitoring.TransactionLogContext;
import dev.lockstep.transactions.usecase.UseCaseCall;
import dev.lockstep.transactions.workflow.ApprovalProcess;
import dev.lockstep.transactions.workflow.ApprovalProcess.StartedProcess;
import dev.lockstep.transactions.workflow.Countersign;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import tools.jackson.databind.json.JsonMapper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * The applicant's and the admin's use cases on one application. Each public method but
 * {@link #createDraft} is one JTA transaction over both databases: the business rows and the engine's
 * ACT_* rows commit together through two-phase commit, or neither does.
 */
@Service
@Transactional(rollbackFor = Exception.class)
public class ApplicationLifecycle {

    private static final Logger log = LoggerFactory.getLogger(ApplicationLifecycle.class);

    private final ApplicationRepository applications;
    private final BusinessProcessBindingRepository bindings;
    private final ApprovalRecordRepository records;
    private final ApprovalProcess process;
    private final RunningApplications running;
    private final ApplicationTrail trail;
    private final RegisteredTypes types;
    private final JsonMapper json;
    private final Clock clock;

    public ApplicationLifecycle(ApplicationRepository applications, BusinessProcessBindingRepository bindings,
            ApprovalRecordRepository records, ApprovalProcess process, RunningApplications running, ApplicationTrail trail,
            RegisteredTypes types, JsonMapper json, Clock clock) {
        this.applications = applications;
        this.bindings = bindings;
        this.records = records;
        this.process = process;
        this.running = running;
        this.trail = trail;
        this.types = types;
        this.json = json;
        this.clock = clock;
    }

    /** A draft is the application row alone (no process yet): a local transaction of the business database. */
    @Transactional(transactionManager = BusinessOnlyTransactions.MANAGER, rollbackFor = Exception.class)
    public ApplicationView createDraft(CreateApplicationRequest request, Long mappedAssetId, UseCaseCall call) {
        Caller caller = call.caller();
        if (!caller.hasRole(Roles.APPLICANT)) {
            throw ApiException.forbidden("NOT_AN_APPLICANT", "Only applicants create applications.");
        }
        if (!Application.BUSINESS_TYPE.equals(request.businessType())) {
            return createTypedDraft(request, mappedAssetId, call);
        }
        if (!request.signers().isEmpty()) {
            throw ApiException.badRequest("INVALID_COUNTERSIGN", "An APPLICATION names its signers in \"countersign\".");
        }
        Countersign countersign = request.countersign();
        if (countersign != null && (countersign.policy() == Countersign.Policy.RATIO) != (countersign.ratio() != null)) {
            throw ApiException.badRequest("INVALID_COUNTERSIGN", "A ratio is required for the RATIO policy and only for it.");
        }
        refuseSigners(countersign == null ? List.of() : countersign.signers(), caller);
        Application draft = Application.draft(request.title().strip(), request.description(), request.assetId(),
                request.amount(), request.riskLevel(), request.sensitive(), countersign, caller.id(), clock.instant());
        Application created = applications.saveAndFlush(draft);
        TransactionLogContext.bind(created.businessKey());
        log.info("{} created draft application {}", caller.id(), created.getId());
        return drafted(created, call);
    }

    /**
     * Refuses an unknown type, fields its schema does not accept, or signers its ACTIVE version does not ask for, and a
     * countersign object (a registered type's definition sets the policy), before the draft's own transaction: the registry
     * is read in a transaction of both databases, which cannot nest in a business-only one. Answers the catalog asset's
     * id that a publishing type's mapping takes from the fields, else null.
     */
    public Long checkType(CreateApplicationRequest request) {
        if (!Application.BUSINESS_TYPE.equals(request.businessType())) {
            if (request.countersign() != null) {
                throw ApiException.badRequest("INVALID_COUNTERSIGN", "An application of a registered type takes its steps and its"
                        + " countersign policy from the type's definition; it names only its signers, in \"signers\".");
            }
            Long assetId = types.checkFields(request.businessType(), request.fields());
            types.checkSigners(request.businessType(), request.signers());
            return assetId;
        }
        return null;
    }

    /**
     * A registered type's draft ({@link #checkType} passed, which refuses a countersign object): its fields as its schema
     * accepted them, and the signers of its definition's countersign step, whose policy the definition sets.
     */
    private ApplicationView createTypedDraft(CreateApplicationRequest request, Long mappedAssetId, UseCaseCall call) {
        Caller caller = call.caller();
        refuseSigners(request.signers(), caller);
        Application created = applications.saveAndFlush(Application.typedDraft(request.businessType(), request.title().strip(),
                request.description(), json.writeValueAsString(request.fields()), mappedAssetId, request.signers(), caller.id(),
                clock.instant()));
        TransactionLogContext.bind(created.businessKey());
        log.info("{} created draft application {} of type {}", caller.id(), created.getId(), created.getBusinessType());
        return drafted(created, call);
    }

    /** The draft's entry, in the draft's local transaction: an auditor's timeline starts at the creation. */
    private ApplicationView drafted(Application created, UseCaseCall call) {
        trail.audit(created, "APPLICATION_CREATED", call, "draft " + (created.isTyped() ? "of type " + created.getBusinessType()
                : created.getRiskLevel() + " risk") + (created.getSigners().isEmpty() ? "" : ", signers " + created.getSigners()),
                created.getCreatedAt());
        return ApplicationView.of(created);
    }

    /** The signers named at creation, of either kind of application: each once, and never the applicant. */
    private static void refuseSigners(List<String> signers, Caller caller) {
        if (signers.stream().distinct().count() != signers.size()) {
            throw ApiException.badRequest("INVALID_COUNTERSIGN", "Each signer may appear only once.");
        }
        SeparationOfDuties.refuseApplicantAsSigner(signers, caller.id());
    }

    /**
     * Starts a new process lifecycle for a draft or a rejected application and binds it. An application of a
     * registered type starts on its type's ACTIVE version, found before anything changes (409 without one).
     */
    public ApplicationView submit(long applicationId, UseCaseCall call) {
        call.actsOn(applicationId);
        Caller caller = call.caller();
        Application application = ownApplication(applicationId, caller);
        // a draft stored before this rule may still name its applicant as a signer
        SeparationOfDuties.refuseApplicantAsSigner(application.getSigners(), caller.id());
        ActiveDefinition definition = application.isTyped()
                ? types.active(application.getBusinessType(), json.readTree(application.getFields())) : null;
        Countersign typedCountersign = definition == null ? null
                : types.countersign(application.getBusinessType(), definition, application.getSigners());
        Instant now = clock.instant();
        if (applications.beginSubmission(applicationId, caller.id(), application.getRowVersion(), now) == 0) {
            throw notSubmittable(applicationId);
        }
        running.requireNotFrozen(applicationId);
        if (typedCountersign != null) {
            applications.takeCountersignPolicy(applicationId, typedCountersign.policy(), typedCountersign.ratio());
        }
        Application submitting = load(applicationId);
        StartedProcess started = definition != null
                ? process.startByDefinitionId(definition.engineDefinitionId(), submitting.businessKey(), caller.id(),
                        definition.routableFields(), typedCountersign, submitting.getActionSeq())
                : process.start(submitting.businessKey(), caller.id(), submitting.isSensitive(),
                        submitting.getRiskLevel().name(), submitting.getCountersign(), submitting.getActionSeq());
        bindings.saveAndFlush(BusinessProcessBinding.active(submitting.businessKey(), started.processInstanceId(),
                started.processDefinitionId(), submitting.getLifecycleNo(), now));
        applications.markApproving(applicationId, started.processInstanceId(), started.processDefinitionId(),
                started.processDefinitionVersion(), definition == null ? null : definition.version(), running.summaryOf(started.processInstanceId()), now);
        log.info("{} submitted application {}: lifecycle {}, process {}", caller.id(), applicationId,
                submitting.getLifecycleNo(), started.processInstanceId());
        Application submitted = load(applicationId);
        trail.audit(submitted, "APPLICATION_SUBMITTED", call, "lifecycle " + submitted.getLifecycleNo() + " started, process "
                + started.processInstanceId() + "; SoD passed: the applicant is none of its signers", now);
        return ApplicationView.of(submitted);
    }

    /** The applicant takes a running application back, as long as no approver has decided on it yet. */
    public ApplicationView withdraw(long applicationId, String reason, UseCaseCall call) {
        call.actsOn(applicationId);
        Caller caller = call.caller();
        Application application = ownApplication(applicationId, caller);
        lockRunning(application);
        if (records.existsByApplicationIdAndLifecycleNo(applicationId, application.getLifecycleNo())) {
            throw ApiException.conflict("APPROVAL_ALREADY_STARTED",
                    "An approver has already decided on application " + applicationId + "; it can no longer be withdrawn.");
        }
        return cancel(application, BindingStatus.WITHDRAWN, Kind.WITHDRAWN, reason, call);
    }

    /** An admin stops a running application for good; audited in the hash-chained trail with its reason. */
    public ApplicationView terminate(long applicationId, String reason, UseCaseCall call) {
        call.actsOn(applicationId);
        Application application = load(applicationId);
        lockRunning(application);
        return cancel(application, BindingStatus.TERMINATED, Kind.TERMINATED, reason, call);
    }

    /** Ends the run and leaves its trail entry (who, why, which tasks were open) in the same transaction. */
    private ApplicationView cancel(Application application, BindingStatus bindingStatus, Kind kind, String why, UseCaseCall call) {
        Instant now = clock.instant();
        String reason = (kind == Kind.WITHDRAWN ? "Withdrawn by " : "Terminated by ") + call.caller().id() + ": " + why;
        trail.canceled(application, kind, why, process.openTasks(application.getProcessInstanceId()), call, now);
        process.cancel(application.getProcessInstanceId(), bindingStatus.name(), reason);
        running.reproject(application.getId(), application.getProcessInstanceId());
        bindings.end(application.getProcessInstanceId(), bindingStatus, now);
        applications.close(application.getId(), ApprovalStatus.CANCELED, PublishStatus.NOT_STARTED, reason, now);
        log.info("application {} canceled ({}): {}", application.getId(), bindingStatus, reason);
        return ApplicationView.of(load(application.getId()));
    }

    private void lockRunning(Application application) {
        if (running.lock(application.getId(), application.getProcessInstanceId()).isEmpty()) {
            throw ApiException.conflict("APPLICATION_NOT_RUNNING", "Application " + application.getId()
                    + " is not being approved (status " + load(application.getId()).getApprovalStatus() + ").");
        }
    }

    private ApiException notSubmittable(long applicationId) {
        ApprovalStatus status = load(applicationId).getApprovalStatus();
        if (status == ApprovalStatus.DRAFT || status == ApprovalStatus.REJECTED) {
            return ApiException.conflict("CONCURRENT_MODIFICATION",
                    "Application " + applicationId + " was changed by another request at the same time; reload and retry.");
        }
        return ApiException.conflict("APPLICATION_NOT_SUBMITTABLE",
                "Application " + applicationId + " is " + status + "; only DRAFT or REJECTED applications can be submitted.");
    }

    private Application ownApplication(long applicationId, Caller caller) {
        Application application = load(applicationId);
        if (!application.getApplicantId().equals(caller.id())) {
            throw ApiException.forbidden("NOT_THE_APPLICANT", "Only the applicant of application " + applicationId
                    + " can do this.");
        }
        return application;
    }

    private Application load(long applicationId) {
        return applications.findById(applicationId).orElseThrow(() -> ApiException.notFound("APPLICATION_NOT_FOUND",
                "There is no application " + applicationId + "."));
    }
}
