package dev.lockstep.approval;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonRawValue;
import dev.lockstep.transactions.workflow.Countersign;
import java.math.BigDecimal;
import java.time.Instant;

/**
 * The application as the API shows it. {@code businessType}, {@code fields} and {@code definitionVersion} appear for
 * an application of a registered type only, so an APPLICATION answer stays as it always was; such an application has
 * no asset columns (null).
 */
public record ApplicationView(
        long id,
        String title,
        String description,
        Long assetId,
        BigDecimal amount,
        RiskLevel riskLevel,
        Boolean sensitive,
        String applicantId,
        ApprovalStatus approvalStatus,
        PublishStatus publishStatus,
        int lifecycleNo,
        String processInstanceId,
        String processDefinitionId,
        Integer processDefinitionVersion,
        String currentTaskSummary,
        String closedReason,
        long rowVersion,
        Instant createdAt,
        Instant updatedAt,
        Countersign countersign,
        @JsonInclude(JsonInclude.Include.NON_NULL) String businessType,
        @JsonInclude(JsonInclude.Include.NON_NULL) @JsonRawValue String fields,
        @JsonInclude(JsonInclude.Include.NON_NULL) Integer definitionVersion) {

    public static ApplicationView of(Application a) {
        return new ApplicationView(a.getId(), a.getTitle(), a.getDescription(), a.getAssetId(), a.getAmount(),
                a.getRiskLevel(), a.isSensitive(), a.getApplicantId(), a.getApprovalStatus(), a.getPublishStatus(),
                a.getLifecycleNo(), a.getProcessInstanceId(), a.getProcessDefinitionId(), a.getProcessDefinitionVersion(),
                a.getCurrentTaskSummary(), a.getClosedReason(), a.getRowVersion(), a.getCreatedAt(), a.getUpdatedAt(),
                a.getCountersign(), a.isTyped() ? a.getBusinessType() : null, a.getFields(), a.getDefinitionVersion());
    }
}
