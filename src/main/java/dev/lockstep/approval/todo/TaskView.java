package dev.lockstep.approval.todo;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;

/**
 * A task on someone's todo or done list, with enough of its application to decide whether to open it.
 * {@code dueAt}: when its step's deadline policy reminds (null without one); {@code overdue} since the
 * reminder fired ({@code overdueSince}).
 */
public record TaskView(
        String id,
        String name,
        String taskDefinitionKey,
        String processInstanceId,
        String state,
        String assignee,
        String owner,
        String delegationState,
        List<String> candidateGroups,
        Instant createdAt,
        Instant endedAt,
        String businessType,
        long applicationId,
        String applicationTitle,
        String applicantId,
        BigDecimal amount,
        Instant dueAt,
        boolean overdue,
        Instant overdueSince) {
}
