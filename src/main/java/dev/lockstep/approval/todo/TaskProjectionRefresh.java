package dev.lockstep.approval.todo;

import dev.lockstep.platform.AreaApi;
import dev.lockstep.transactions.workflow.ApprovalProcess;
import dev.lockstep.transactions.workflow.ApprovalProcess.LiveTask;
import dev.lockstep.transactions.workflow.ApprovalProcess.RunTasks;
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
    private final ApprovalProcess process;

    public TaskProjectionRefresh(TaskProjection projection, TaskService tasks, HistoryService history, ApprovalProcess process) {
        this.projection = projection;
        this.tasks = tasks;
        this.history = history;
        this.process = process;
    }

    /**
     * Re-projects every task of the run that the engine has open, and every one the projection still shows
     * open (a command may have ended it), through the engine's API. {@code businessKey} is the run's application.
     */
    public void refresh(String businessKey, String processInstanceId) {
        refresh(businessKey, process.tasksOfRun(processInstanceId));
    }

    /** As {@link #refresh(String, String)}, from the run's tasks as one engine command read them. */
    public void refresh(String businessKey, RunTasks run) {
        Map<String, LiveTask> open = run.open().stream().collect(Collectors.toMap(live -> live.task().getId(), Function.identity()));
        Set<String> touched = new HashSet<>(open.keySet());
        projection.openTasksOf(run.processInstanceId()).forEach(row -> touched.add(row.id()));
        for (HistoricTaskInstance task : run.history()) {
            if (touched.contains(task.getId())) {
                projection.save(project(task, open), businessKey);
            }
        }
    }

    /** Re-projects one task of the application {@code businessKey} from the engine, leaving every other row as it is. */
    public void refreshTask(String businessKey, String taskId) {
        HistoricTaskInstance task = history.createHistoricTaskInstanceQuery().taskId(taskId).singleResult();
        projection.save(project(task, liveTasks(tasks.createTaskQuery().taskId(taskId).list())), businessKey);
    }

    /** The open tasks by id with their identity links, for {@link #project}. */
    Map<String, LiveTask> liveTasks(List<Task> open) {
        return open.stream().collect(Collectors.toMap(Task::getId, task -> new LiveTask(task, tasks.getIdentityLinksForTask(task.getId()))));
    }

    /** One task's row: from the live task and its candidate links while it is open, from history once it ended. */
    static ProjectedTask project(HistoricTaskInstance task, Map<String, LiveTask> open) {
        if (task.getEndTime() != null) {
            return ProjectedTask.ended(task);
        }
        LiveTask live = open.get(task.getId());
        return ProjectedTask.open(live.task(), live.links(), task);
    }
}
