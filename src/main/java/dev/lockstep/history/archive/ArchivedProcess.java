package dev.lockstep.history.archive;

import dev.lockstep.platform.AreaApi;
import java.time.Instant;
import java.util.List;

/**
 * One ended process instance as the engine's history held it, with everything its history held for it:
 * the rows {@link HistoryArchive#write} stores and the engine then deletes, in one transaction. Ids are
 * the engine's ids.
 */
@AreaApi
public record ArchivedProcess(String processInstanceId, String businessKey, String processDefinitionId, String startUserId,
        Instant startTime, Instant endTime, String deleteReason, String outcome, List<Activity> activities, List<Task> tasks,
        List<Variable> variables, List<IdentityLink> identityLinks) {

    public record Activity(String id, String activityId, String activityName, String activityType, String assignee,
            String taskId, Instant startTime, Instant endTime, String deleteReason) {
    }

    public record Task(String taskId, String processInstanceId, String taskDefinitionKey, String name, String assignee,
            String owner, Instant createTime, Instant endTime, String deleteReason) {
    }

    /** {@code textValue}: the value as text; the archive is a record to read, not variables to restore. */
    public record Variable(String id, String taskId, String name, String typeName, String textValue) {
    }

    public record IdentityLink(String id, String taskId, String type, String userId, String groupId) {
    }

    /** History rows this process stands for: its own, its activities, tasks, variables and identity links. */
    public int rows() {
        return 1 + activities.size() + tasks.size() + variables.size() + identityLinks.size();
    }
}
