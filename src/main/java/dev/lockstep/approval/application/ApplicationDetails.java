package dev.lockstep.approval.application;

import dev.lockstep.approval.ApplicationView;
import dev.lockstep.approval.ApprovalRecord;
import dev.lockstep.approval.BindingStatus;
import dev.lockstep.approval.BusinessProcessBinding;
import dev.lockstep.approval.Decision;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.lockstep.workflow.ApprovalProcess.OpenTask;
import dev.lockstep.workflow.ReturnMode;
import java.time.Instant;
import java.util.List;

/** One application with its process runs, its decisions and the tasks open on it now. */
public record ApplicationDetails(
        @JsonUnwrapped ApplicationView application,
        List<Binding> bindings,
        List<Record> approvalRecords,
        List<OpenTask> openTasks) {

    public record Binding(String processInstanceId, String processDefinitionId, int lifecycleNo, BindingStatus status,
            Instant createdAt, Instant endedAt) {

        static Binding of(BusinessProcessBinding b) {
            return new Binding(b.getProcessInstanceId(), b.getProcessDefinitionId(), b.getLifecycleNo(),
                    b.getBindingStatus(), b.getCreatedAt(), b.getEndedAt());
        }
    }

    /** {@code returnTarget} and {@code returnMode} only for a RETURN. */
    public record Record(int lifecycleNo, String taskId, String taskDefinitionKey, String taskName, Decision decision,
            String comment, String approverId, String requestId, Instant decidedAt, String returnTarget,
            ReturnMode returnMode) {

        static Record of(ApprovalRecord r) {
            return new Record(r.getLifecycleNo(), r.getTaskId(), r.getTaskDefinitionKey(), r.getTaskName(),
                    r.getDecision(), r.getComment(), r.getApproverId(), r.getRequestId(), r.getDecidedAt(),
                    r.getReturnTarget(), r.getReturnMode());
        }
    }
}
