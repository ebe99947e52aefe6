package dev.lockstep.approval.deadlines;

import dev.lockstep.approval.todo.TaskProjectionListener;
import org.activiti.engine.impl.interceptor.Command;
import org.activiti.engine.impl.interceptor.CommandContext;
import org.activiti.engine.impl.persistence.entity.TaskEntity;

/**
 * Offers an open task to the escalation group as well (a candidate group beside its own) and
 * re-projects it, so the group's todo list shows it in the same transaction. An assigned task stays
 * with its assignee; the group sees it once it is released.
 */
final class EscalateCmd implements Command<Void> {

    private final String taskId;
    private final String group;
    private final TaskProjectionListener projection;

    EscalateCmd(String taskId, String group, TaskProjectionListener projection) {
        this.taskId = taskId;
        this.group = group;
        this.projection = projection;
    }

    @Override
    public Void execute(CommandContext context) {
        TaskEntity task = context.getTaskEntityManager().findById(taskId);
        if (task == null) {
            throw new IllegalStateException("task " + taskId + " to escalate is no longer open");
        }
        boolean offered = task.getIdentityLinks().stream().anyMatch(link -> group.equals(link.getGroupId()));
        if (!offered) {
            task.addCandidateGroup(group);
        }
        projection.reproject(task);
        return null;
    }
}
