package dev.lockstep.approval.todo;

import dev.lockstep.transactions.workflow.EngineEventListener;
import java.util.List;
import org.activiti.engine.delegate.event.ActivitiEntityEvent;
import org.activiti.engine.delegate.event.ActivitiEvent;
import org.activiti.engine.delegate.event.ActivitiEventType;
import org.activiti.engine.history.HistoricTaskInstance;
import org.activiti.engine.impl.context.Context;
import org.activiti.engine.impl.persistence.entity.TaskEntity;
import org.springframework.stereotype.Component;

/**
 * Projects a task where the engine creates or ends it, from inside that engine command; both events
 * are complete. The engine fires TASK_CREATED for every user task once its assignee and candidate
 * groups are set, and every way a task ends (completion, process cancellation, terminate end event,
 * multi-instance siblings closed) goes through the engine's task deletion, which has just recorded
 * the end in history. Changes to an open task's hands (claim, delegate, resolve, transfer) are not
 * taken from events: TASK_ASSIGNED fires only when the assignee changes, not for a delegation state
 * or owner change alone, so every task command ends with {@link TaskProjectionRefresh} instead.
 */
@Component
public class TaskProjectionListener implements EngineEventListener {

    private final TaskProjection projection;

    public TaskProjectionListener(TaskProjection projection) {
        this.projection = projection;
    }

    @Override
    public List<ActivitiEventType> events() {
        return List.of(ActivitiEventType.TASK_CREATED, ActivitiEventType.ENTITY_DELETED);
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
