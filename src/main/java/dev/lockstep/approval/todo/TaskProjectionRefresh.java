package dev.lockstep.approval.todo;

import dev.lockstep.platform.AreaApi;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.activiti.engine.HistoryService;
import org.activiti.engine.TaskService;
import org.activiti.engine.history.HistoricTaskInstance;
import org.activiti.engine.task.Task;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Writes the projection rows of one run's tasks from what the engine holds for them now, whatever
 * events the engine fired on the way: called at the end of every task command, in its transaction. An
 * event listener alone misses changes that fire no event (a resolve back to an owner who is already the
 * assignee changes only the delegation state, and the engine fires no assignment event for it).
 * Joins the caller's XA transaction (a caller without one, a test setting up a state, gets its own).
 */
@Service
@Transactional(rollbackFor = Exception.class)
@AreaApi
public class TaskProjectionRefresh {

    private final TaskProjection projection;
    private final TaskService tasks;
    private final HistoryService history;

    public TaskProjectionRefresh(TaskProjection projection, TaskService tasks, HistoryService history) {
        this.projection = projection;
        this.tasks = tasks;
        this.history = history;
    }

    /**
     * Re-projects every task of the run that the engine has open, and every one the projection still shows
     * open (a command may have ended it), through the engine's API. {@code businessKey} is the run's application.
     */
    public void refresh(String businessKey, String processInstanceId) {
        Map<String, Task> open = openTasks(tasks.createTaskQuery().processInstanceId(processInstanceId).list());
        Set<String> touched = new HashSet<>(open.keySet());
        projection.openTasksOf(processInstanceId).forEach(row -> touched.add(row.id()));
        if (touched.isEmpty()) {
            return;
        }
        for (HistoricTaskInstance task : history.createHistoricTaskInstanceQuery().processInstanceId(processInstanceId).list()) {
            if (touched.contains(task.getId())) {
                projection.save(project(task, open), businessKey);
            }
        }
    }

    /** Re-projects one task of the application {@code businessKey} from the engine, leaving every other row as it is. */
    public void refreshTask(String businessKey, String taskId) {
        HistoricTaskInstance task = history.createHistoricTaskInstanceQuery().taskId(taskId).singleResult();
        projection.save(project(task, openTasks(tasks.createTaskQuery().taskId(taskId).list())), businessKey);
    }

    /** The open tasks by id, for {@link #project}. */
    static Map<String, Task> openTasks(List<Task> open) {
        return open.stream().collect(Collectors.toMap(Task::getId, Function.identity()));
    }

    /** One task's row: from the live task and its candidate links while it is open, from history once it ended. */
    ProjectedTask project(HistoricTaskInstance task, Map<String, Task> open) {
        return task.getEndTime() != null ? ProjectedTask.ended(task)
                : ProjectedTask.open(open.get(task.getId()), tasks.getIdentityLinksForTask(task.getId()), task);
    }
}
