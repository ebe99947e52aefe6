package dev.lockstep.approval.todo;

import dev.lockstep.history.archive.ArchivedProcess;
import java.time.Instant;
import java.util.Collection;
import java.util.Date;
import java.util.List;
import org.activiti.engine.history.HistoricTaskInstance;
import org.activiti.engine.task.IdentityLink;
import org.activiti.engine.task.IdentityLinkType;
import org.activiti.engine.task.Task;

/**
 * The engine's side of one projection row. Built the same way from the live task inside an engine
 * event and from the engine's stored data during a rebuild, which is why the two agree.
 */
record ProjectedTask(String taskId, String processInstanceId, String taskDefinitionKey, String taskName, TaskState state,
        String assignee, String owner, String delegationState, List<String> candidateGroups, Instant createdAt,
        Instant endedAt, String endReason) {

    enum TaskState { OPEN, COMPLETED, CANCELED }

    /**
     * An open task, with the groups it is offered to. Its creation time comes from history, the one
     * place that still has it after the task ended (the runtime row's own create time differs slightly).
     */
    static ProjectedTask open(Task task, Collection<? extends IdentityLink> links, HistoricTaskInstance history) {
        List<String> groups = links.stream()
                .filter(link -> IdentityLinkType.CANDIDATE.equals(link.getType()) && link.getGroupId() != null)
                .map(IdentityLink::getGroupId)
                .distinct().sorted().toList();
        return new ProjectedTask(task.getId(), task.getProcessInstanceId(), task.getTaskDefinitionKey(), task.getName(),
                TaskState.OPEN, task.getAssignee(), task.getOwner(),
                task.getDelegationState() == null ? null : task.getDelegationState().name(), groups,
                instant(history.getCreateTime()), null, null);
    }

    /**
     * An ended task as history recorded it: the engine ends a completed task with no delete reason and
     * a cancelled one (process withdrawn, terminate end event, multi-instance siblings) with one.
     */
    static ProjectedTask ended(HistoricTaskInstance task) {
        return new ProjectedTask(task.getId(), task.getProcessInstanceId(), task.getTaskDefinitionKey(), task.getName(),
                task.getDeleteReason() == null ? TaskState.COMPLETED : TaskState.CANCELED, task.getAssignee(),
                task.getOwner(), null, List.of(), instant(task.getCreateTime()), instant(task.getEndTime()),
                task.getDeleteReason());
    }

    /** An ended task of an archived process, mapped as {@link #ended} maps it from history. */
    static ProjectedTask archived(ArchivedProcess.Task task) {
        return new ProjectedTask(task.taskId(), task.processInstanceId(), task.taskDefinitionKey(), task.name(),
                task.deleteReason() == null ? TaskState.COMPLETED : TaskState.CANCELED, task.assignee(), task.owner(), null,
                List.of(), task.createTime(), task.endTime(), task.deleteReason());
    }

    private static Instant instant(Date date) {
        return date == null ? null : date.toInstant();
    }
}
