package dev.lockstep.approval;

import dev.lockstep.transactions.workflow.ReturnMode;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/**
 * One decision on one task: who, what, when, and under which request id (the business audit of approvals).
 * A return (驳回) is a decision too: the reason is its comment, with the step it went back to and the mode.
 */
@Entity
@Table(name = "approval_record")
public class ApprovalRecord {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;
    private long applicationId;
    private int lifecycleNo;
    private String processInstanceId;
    private String taskId;
    private String taskDefinitionKey;
    private String taskName;
    @Enumerated(EnumType.STRING)
    private Decision decision;
    // quoted: COMMENT is a reserved word on Oracle (the Oracle migration quotes it too)
    @Column(name = "\"comment\"")
    private String comment;
    private String approverId;
    private String requestId;
    private Instant decidedAt;
    private String returnTarget;
    @Enumerated(EnumType.STRING)
    private ReturnMode returnMode;

    protected ApprovalRecord() {
    }

    public static ApprovalRecord of(long applicationId, int lifecycleNo, String processInstanceId, String taskId,
            String taskDefinitionKey, String taskName, Decision decision, String comment, String approverId,
            String requestId, Instant decidedAt) {
        ApprovalRecord record = new ApprovalRecord();
        record.applicationId = applicationId;
        record.lifecycleNo = lifecycleNo;
        record.processInstanceId = processInstanceId;
        record.taskId = taskId;
        record.taskDefinitionKey = taskDefinitionKey;
        record.taskName = taskName;
        record.decision = decision;
        record.comment = comment;
        record.approverId = approverId;
        record.requestId = requestId;
        record.decidedAt = decidedAt;
        return record;
    }

    public static ApprovalRecord returned(long applicationId, int lifecycleNo, String processInstanceId, String taskId,
            String taskDefinitionKey, String taskName, String returnTarget, ReturnMode returnMode, String reason,
            String approverId, String requestId, Instant decidedAt) {
        ApprovalRecord record = of(applicationId, lifecycleNo, processInstanceId, taskId, taskDefinitionKey, taskName,
                Decision.RETURN, reason, approverId, requestId, decidedAt);
        record.returnTarget = returnTarget;
        record.returnMode = returnMode;
        return record;
    }

    public Long getId() {
        return id;
    }

    public int getLifecycleNo() {
        return lifecycleNo;
    }

    public String getTaskId() {
        return taskId;
    }

    public String getTaskDefinitionKey() {
        return taskDefinitionKey;
    }

    public String getTaskName() {
        return taskName;
    }

    public Decision getDecision() {
        return decision;
    }

    public String getComment() {
        return comment;
    }

    public String getApproverId() {
        return approverId;
    }

    public String getRequestId() {
        return requestId;
    }

    public Instant getDecidedAt() {
        return decidedAt;
    }

    public String getReturnTarget() {
        return returnTarget;
    }

    public ReturnMode getReturnMode() {
        return returnMode;
    }
}
