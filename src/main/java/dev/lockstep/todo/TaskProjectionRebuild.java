package dev.lockstep.todo;

import java.util.Map;
import java.util.function.Function;
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
 * history, through the same {@link ProjectedTask} mapping the listener uses. One XA transaction.
 */
@Service
@Transactional(rollbackFor = Exception.class)
public class TaskProjectionRebuild {

    private final TaskProjection projection;
    private final HistoryService history;
    private final TaskService tasks;

    public TaskProjectionRebuild(TaskProjection projection, HistoryService history, TaskService tasks) {
        this.projection = projection;
        this.history = history;
        this.tasks = tasks;
    }

    /** Returns the number of rows written. */
    public int rebuild() {
        // Waits for in-flight task commands and holds later ones until this commits, so none is lost in between.
        projection.lockAll();
        projection.deleteAll();
        Map<String, String> businessKeys = history.createHistoricProcessInstanceQuery().list().stream()
                .collect(Collectors.toMap(HistoricProcessInstance::getId, HistoricProcessInstance::getBusinessKey));
        Map<String, Task> open = tasks.createTaskQuery().list().stream()
                .collect(Collectors.toMap(Task::getId, Function.identity()));
        int rows = 0;
        for (HistoricTaskInstance task : history.createHistoricTaskInstanceQuery().list()) {
            if (task.getProcessInstanceId() == null) {
                continue;
            }
            ProjectedTask row = task.getEndTime() != null ? ProjectedTask.ended(task)
                    : ProjectedTask.open(open.get(task.getId()), tasks.getIdentityLinksForTask(task.getId()), task);
            projection.save(row, businessKeys.get(task.getProcessInstanceId()));
            rows++;
        }
        return rows;
    }
}
