package dev.lockstep.approval.application;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.lockstep.approval.ApplicationView;
import dev.lockstep.approval.ApprovalRecord;
import dev.lockstep.approval.BindingStatus;
import dev.lockstep.approval.BusinessProcessBinding;
import dev.lockstep.approval.Decision;
import dev.lockstep.approval.trail.ApplicationEvent;
import dev.lockstep.transactions.workflow.ApprovalProcess.OpenTask;
import dev.lockstep.transactions.workflow.ReturnMode;
import java.time.Instant;
import java.util.List;
import java.util.stream.IntStream;

/**
 * One application with its process runs, its decisions, its application-level events (withdrawn,
 * terminated) and the tasks open on it now.
 */
public record ApplicationDetails(
        @JsonUnwrapped ApplicationView application,
        List<Binding> bindings,
        List<Record> approvalRecords,
        List<Event> events,
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

    /**
     * A withdrawal, termination, deadline firing or signer change: who, when, why, under which request, the tasks it
     * closed or concerned, and for a signer change the signer ({@code signerId}, else null).
     */
    public record Event(int lifecycleNo, String processInstanceId, ApplicationEvent.Kind kind, String actorId, String reason,
            List<ClosedTask> openTasks, String requestId, Instant occurredAt, String signerId) {

        static Event of(ApplicationEvent e) {
            List<String> ids = split(e.getOpenTaskIds());
            List<String> names = split(e.getOpenTaskNames());
            List<ClosedTask> tasks = IntStream.range(0, ids.size())
                    .mapToObj(i -> new ClosedTask(ids.get(i), i < names.size() ? names.get(i) : null)).toList();
            return new Event(e.getLifecycleNo(), e.getProcessInstanceId(), e.getKind(), e.getActorId(), e.getReason(), tasks,
                    e.getRequestId(), e.getOccurredAt(), e.getSignerId());
        }

        private static List<String> split(String joined) {
            return joined == null || joined.isEmpty() ? List.of() : List.of(joined.split(","));
        }
    }

    public record ClosedTask(String id, String name) {
    }
}
