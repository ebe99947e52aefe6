package dev.lockstep.todo;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;

/** A task on someone's todo or done list, with enough of its application to decide whether to open it. */
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
        BigDecimal amount) {
}
