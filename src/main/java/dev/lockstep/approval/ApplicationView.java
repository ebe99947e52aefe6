package dev.lockstep.approval;

import dev.lockstep.transactions.workflow.Countersign;
import java.math.BigDecimal;
import java.time.Instant;

/** The application as the API shows it. */
public record ApplicationView(
        long id,
        String title,
        String description,
        long assetId,
        BigDecimal amount,
        RiskLevel riskLevel,
        boolean sensitive,
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
        Countersign countersign) {

    public static ApplicationView of(Application a) {
        return new ApplicationView(a.getId(), a.getTitle(), a.getDescription(), a.getAssetId(), a.getAmount(),
                a.getRiskLevel(), a.isSensitive(), a.getApplicantId(), a.getApprovalStatus(), a.getPublishStatus(),
                a.getLifecycleNo(), a.getProcessInstanceId(), a.getProcessDefinitionId(), a.getProcessDefinitionVersion(),
                a.getCurrentTaskSummary(), a.getClosedReason(), a.getRowVersion(), a.getCreatedAt(), a.getUpdatedAt(),
                a.getCountersign());
    }
}
