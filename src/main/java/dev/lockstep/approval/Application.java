package dev.lockstep.approval;

import dev.lockstep.platform.AreaApi;
import dev.lockstep.transactions.workflow.Countersign;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;

/**
 * The business fact: what is applied for, by whom, and where it stands. State changes go through
 * the guarded updates in {@link ApplicationRepository}, never through setters.
 */
@Entity
@Table(name = "application")
@AreaApi
public class Application {

    public static final String BUSINESS_TYPE = "APPLICATION";

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;
    private String title;
    private String description;
    /** The registered business type; the asset columns below are set for {@link #BUSINESS_TYPE} only. */
    private String businessType;
    /** A registered type's fields as JSON text, as its schema accepted them; null for {@link #BUSINESS_TYPE}. */
    private String fields;
    /** The definition version of a registered type the current run started on; null for {@link #BUSINESS_TYPE}. */
    private Integer definitionVersion;
    private Long assetId;
    private BigDecimal amount;
    @Enumerated(EnumType.STRING)
    private RiskLevel riskLevel;
    private Boolean sensitive;
    private String applicantId;
    @Enumerated(EnumType.STRING)
    private ApprovalStatus approvalStatus;
    @Enumerated(EnumType.STRING)
    private PublishStatus publishStatus;
    private String processInstanceId;
    private String processDefinitionId;
    private Integer processDefinitionVersion;
    private int lifecycleNo;
    private String currentTaskSummary;
    private String closedReason;
    @Enumerated(EnumType.STRING)
    private Countersign.Policy countersignPolicy;
    private BigDecimal countersignRatio;
    /** Comma-separated user ids (signer ids cannot contain a comma). */
    private String countersignSigners;
    private boolean countersignManagerReview;
    @Column(name = "row_version")
    private long rowVersion;
    /** Locked actions on the running process so far; mirrored in the workflow (workflow/ActionFence). */
    private long actionSeq;
    private Instant createdAt;
    private Instant updatedAt;

    protected Application() {
    }

    public static Application draft(String title, String description, long assetId, BigDecimal amount, RiskLevel riskLevel,
            boolean sensitive, Countersign countersign, String applicantId, Instant now) {
        Application application = new Application();
        application.businessType = BUSINESS_TYPE;
        application.title = title;
        application.description = description;
        application.assetId = assetId;
        application.amount = amount;
        application.riskLevel = riskLevel;
        application.sensitive = sensitive;
        application.applicantId = applicantId;
        if (countersign != null) {
            application.countersignPolicy = countersign.policy();
            application.countersignRatio = countersign.ratio();
            application.countersignSigners = String.join(",", countersign.signers());
            application.countersignManagerReview = countersign.managerReview();
        }
        return application.asDraft(now);
    }

    /**
     * A draft of a registered type other than {@link #BUSINESS_TYPE}: its {@code fields} passed the type's schema;
     * {@code assetId}: the catalog asset's id its type's mapping takes from them when the type publishes, else null.
     */
    public static Application typedDraft(String businessType, String title, String description, String fields, Long assetId,
            List<String> signers, String applicantId, Instant now) {
        Application application = new Application();
        application.businessType = businessType;
        application.assetId = assetId;
        application.countersignSigners = signers.isEmpty() ? null : String.join(",", signers);
        application.title = title;
        application.description = description;
        application.fields = fields;
        application.applicantId = applicantId;
        return application.asDraft(now);
    }

    private Application asDraft(Instant now) {
        approvalStatus = ApprovalStatus.DRAFT;
        publishStatus = PublishStatus.NOT_STARTED;
        createdAt = now;
        updatedAt = now;
        return this;
    }

    /** Whether its approval is published to the catalog: every APPLICATION, and one of a type that publishes (it has an asset). */
    public boolean publishes() {
        return !isTyped() || assetId != null;
    }

    /** True for an application of a registered type, which runs on that type's ACTIVE definition. */
    public boolean isTyped() {
        return !BUSINESS_TYPE.equals(businessType);
    }

    public String getBusinessType() {
        return businessType;
    }

    public String getFields() {
        return fields;
    }

    public Integer getDefinitionVersion() {
        return definitionVersion;
    }

    public String businessKey() {
        return id.toString();
    }

    public Long getId() {
        return id;
    }

    public String getTitle() {
        return title;
    }

    public String getDescription() {
        return description;
    }

    public Long getAssetId() {
        return assetId;
    }

    public BigDecimal getAmount() {
        return amount;
    }

    public RiskLevel getRiskLevel() {
        return riskLevel;
    }

    public Boolean isSensitive() {
        return sensitive;
    }

    public String getApplicantId() {
        return applicantId;
    }

    public ApprovalStatus getApprovalStatus() {
        return approvalStatus;
    }

    public PublishStatus getPublishStatus() {
        return publishStatus;
    }

    public String getProcessInstanceId() {
        return processInstanceId;
    }

    public String getProcessDefinitionId() {
        return processDefinitionId;
    }

    public Integer getProcessDefinitionVersion() {
        return processDefinitionVersion;
    }

    public int getLifecycleNo() {
        return lifecycleNo;
    }

    public String getCurrentTaskSummary() {
        return currentTaskSummary;
    }

    /**
     * The signers named at creation, empty without; an application of a registered type takes its countersign
     * policy only when it is submitted on a version with a countersign step.
     */
    public List<String> getSigners() {
        return countersignSigners == null ? List.of() : List.of(countersignSigners.split(","));
    }

    /** The countersign step this application runs, or null for the standard chain. */
    public Countersign getCountersign() {
        return countersignPolicy == null ? null
                : new Countersign(List.of(countersignSigners.split(",")), countersignPolicy, countersignRatio,
                        countersignManagerReview);
    }

    public String getClosedReason() {
        return closedReason;
    }

    public long getActionSeq() {
        return actionSeq;
    }

    public long getRowVersion() {
        return rowVersion;
    }

    public Instant getCreatedAt() {
        return createdAt;
    }

    public Instant getUpdatedAt() {
        return updatedAt;
    }
}
