package dev.lockstep.transactions.workflow;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.activiti.engine.ActivitiObjectNotFoundException;
import org.activiti.engine.history.HistoricTaskInstance;
import org.activiti.engine.impl.HistoricTaskInstanceQueryImpl;
import org.activiti.engine.impl.interceptor.Command;
import org.activiti.engine.impl.interceptor.CommandContext;
import org.activiti.engine.impl.persistence.entity.TaskEntity;
import org.activiti.engine.impl.util.ProcessDefinitionUtil;
import org.activiti.engine.task.Task;

/** The steps an open task may be returned to (read only). */
class ReturnTargetsCmd implements Command<List<ReturnTarget>> {

    private final String taskId;

    ReturnTargetsCmd(String taskId) {
        this.taskId = taskId;
    }

    @Override
    public List<ReturnTarget> execute(CommandContext context) {
        TaskEntity task = openTask(context, taskId);
        return targetsOf(task).allowed(task.getTaskDefinitionKey(), completedUserTasks(context, task.getProcessInstanceId()));
    }

    static TaskEntity openTask(CommandContext context, String taskId) {
        TaskEntity task = context.getTaskEntityManager().findById(taskId);
        if (task == null || task.getProcessInstanceId() == null) {
            throw new ActivitiObjectNotFoundException("task " + taskId + " is not open", Task.class);
        }
        return task;
    }

    static ReturnTargets targetsOf(TaskEntity task) {
        return new ReturnTargets(ProcessDefinitionUtil.getProcess(task.getProcessDefinitionId()));
    }

    /** Activity ids of the user tasks this run has completed (ended without a delete reason, i.e. not cancelled). */
    static Set<String> completedUserTasks(CommandContext context, String processInstanceId) {
        HistoricTaskInstanceQueryImpl finished = new HistoricTaskInstanceQueryImpl();
        finished.processInstanceId(processInstanceId).finished();
        return context.getHistoricTaskInstanceEntityManager().findHistoricTaskInstancesByQueryCriteria(finished).stream()
                .filter(task -> task.getDeleteReason() == null)
                .map(HistoricTaskInstance::getTaskDefinitionKey)
                .collect(Collectors.toSet());
    }
}
