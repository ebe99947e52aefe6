package dev.lockstep.approval;

import dev.lockstep.transactions.workflow.ApprovalProcess.OpenTask;
import java.util.List;
import java.util.stream.Collectors;
import org.springframework.stereotype.Component;

/**
 * The display-only current_task_summary: every open task (parallel branches have several), with
 * its assignee. The engine stays the authority on which tasks are open.
 */
@Component
class TaskSummaries {

    private static final int MAX_LENGTH = 500;

    String of(List<OpenTask> tasks) {
        String summary = tasks.stream()
                .map(task -> task.assignee() == null ? task.name() : task.name() + " (" + task.assignee() + ")")
                .collect(Collectors.joining(", "));
        return summary.length() <= MAX_LENGTH ? summary : summary.substring(0, MAX_LENGTH - 1) + "…";
    }
}
