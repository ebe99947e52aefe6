package dev.lockstep.approval;

import dev.lockstep.workflow.ApprovalProcess.OpenTask;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;

/** A task on someone's todo list, with enough of its application to decide whether to open it. */
public record TaskView(
        String id,
        String name,
        String taskDefinitionKey,
        String processInstanceId,
        String assignee,
        List<String> candidateGroups,
        Instant createdAt,
        Long applicationId,
        String applicationTitle,
        String applicantId,
        BigDecimal amount,
        RiskLevel riskLevel) {

    static TaskView of(OpenTask task, Application application) {
        return new TaskView(task.id(), task.name(), task.taskDefinitionKey(), task.processInstanceId(), task.assignee(),
                task.candidateGroups(), task.createdAt(),
                application == null ? null : application.getId(),
                application == null ? null : application.getTitle(),
                application == null ? null : application.getApplicantId(),
                application == null ? null : application.getAmount(),
                application == null ? null : application.getRiskLevel());
    }
}
