package dev.lockstep.todo;

import java.util.List;
import org.activiti.engine.delegate.event.ActivitiEntityEvent;
import org.activiti.engine.delegate.event.ActivitiEvent;
import org.activiti.engine.delegate.event.ActivitiEventListener;
import org.activiti.engine.delegate.event.ActivitiEventType;
import org.activiti.engine.history.HistoricTaskInstance;
import org.activiti.engine.impl.context.Context;
import org.activiti.engine.impl.persistence.entity.TaskEntity;
import org.springframework.stereotype.Component;

/**
 * Keeps task_projection in step with the engine from inside each engine command. Created and
 * assigned (claim, delegate, resolve, transfer) re-project the live task; every way a task ends
 * (completion, process cancellation, terminate end event, multi-instance siblings closed) goes
 * through the engine's task deletion, which has just recorded the end in history.
 */
@Component
public class TaskProjectionListener implements ActivitiEventListener {

    public static final List<ActivitiEventType> EVENTS =
            List.of(ActivitiEventType.TASK_CREATED, ActivitiEventType.TASK_ASSIGNED, ActivitiEventType.ENTITY_DELETED);

    private final TaskProjection projection;

    public TaskProjectionListener(TaskProjection projection) {
        this.projection = projection;
    }

    @Override
    public void onEvent(ActivitiEvent event) {
        if (!(event instanceof ActivitiEntityEvent entityEvent) || !(entityEvent.getEntity() instanceof TaskEntity task)
                || task.getProcessInstanceId() == null) {
            return;
        }
        String businessKey = task.getProcessInstance().getBusinessKey();
        // From the command's entity cache when this command created or ended the task (with the end
        // time and reason recordTaskEnd has just set), else from the history table.
        HistoricTaskInstance history = Context.getCommandContext().getHistoricTaskInstanceEntityManager().findById(task.getId());
        projection.save(event.getType() == ActivitiEventType.ENTITY_DELETED ? ProjectedTask.ended(history)
                : ProjectedTask.open(task, task.getIdentityLinks(), history), businessKey);
    }

    /** Re-projects an open task whose candidates changed inside the current engine command (an escalation). */
    public void reproject(TaskEntity task) {
        HistoricTaskInstance history = Context.getCommandContext().getHistoricTaskInstanceEntityManager().findById(task.getId());
        projection.save(ProjectedTask.open(task, task.getIdentityLinks(), history), task.getProcessInstance().getBusinessKey());
    }

    /** A projection write that fails must fail the engine command, so neither database changes. */
    @Override
    public boolean isFailOnException() {
        return true;
    }
}
