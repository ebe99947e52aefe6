package dev.lockstep.approval.todo;

import dev.lockstep.history.archive.HistoryArchive;
import dev.lockstep.platform.AreaApi;
import java.util.Map;
import java.util.stream.Collectors;
import org.activiti.engine.HistoryService;
import org.activiti.engine.TaskService;
import org.activiti.engine.history.HistoricProcessInstance;
import org.activiti.engine.history.HistoricTaskInstance;
import org.activiti.engine.task.Task;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Regenerates task_projection from the engine: open tasks from the runtime, ended ones from
 * history, through the same mapping as the end-of-command {@link TaskProjectionRefresh}, and those of archived
 * processes from the history archive. One XA transaction.
 */
@Service
@Transactional(rollbackFor = Exception.class)
@AreaApi
public class TaskProjectionRebuild {

    private final TaskProjection projection;
    private final HistoryService history;
    private final TaskService tasks;
    private final TaskProjectionRefresh refresh;
    private final HistoryArchive archive;

    public TaskProjectionRebuild(TaskProjection projection, HistoryService history, TaskService tasks,
            TaskProjectionRefresh refresh, HistoryArchive archive) {
        this.projection = projection;
        this.history = history;
        this.tasks = tasks;
        this.refresh = refresh;
        this.archive = archive;
    }

    /** Returns the number of rows written. */
    public int rebuild() {
        // Waits for in-flight task commands and holds later ones until this commits, so none is lost in between.
        projection.lockAll();
        // due dates and overdue marks are the projection's own record (set by the deadline listener), not engine facts
        Map<String, TaskProjection.DeadlineMarks> deadlineMarks = projection.deadlineMarks();
        projection.deleteAll();
        // waits for an archival batch in flight: a process it moves is then in history or in the archive, never in neither
        archive.lockControl();
        Map<String, String> businessKeys = history.createHistoricProcessInstanceQuery().list().stream()
                .collect(Collectors.toMap(HistoricProcessInstance::getId, HistoricProcessInstance::getBusinessKey));
        Map<String, Task> open = TaskProjectionRefresh.openTasks(tasks.createTaskQuery().list());
        int rows = 0;
        for (HistoricTaskInstance task : history.createHistoricTaskInstanceQuery().list()) {
            if (task.getProcessInstanceId() == null) {
                continue;
            }
            projection.save(refresh.project(task, open), businessKeys.get(task.getProcessInstanceId()));
            rows++;
        }
        for (HistoryArchive.ArchivedTask archived : archive.tasks()) {
            projection.save(ProjectedTask.archived(archived.task()), archived.businessKey());
            rows++;
        }
        deadlineMarks.forEach(projection::restore);
        return rows;
    }
}
