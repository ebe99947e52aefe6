package dev.lockstep.approval.deadlines;

import dev.lockstep.approval.todo.TaskProjection;
import java.time.Duration;
import org.activiti.bpmn.model.BoundaryEvent;
import org.activiti.engine.RuntimeService;
import org.activiti.engine.delegate.event.ActivitiEntityEvent;
import org.activiti.engine.delegate.event.ActivitiEvent;
import org.activiti.engine.delegate.event.ActivitiEventListener;
import org.activiti.engine.delegate.event.ActivitiEventType;
import org.activiti.engine.impl.persistence.entity.TaskEntity;
import org.activiti.engine.impl.util.ProcessDefinitionUtil;
import org.springframework.stereotype.Component;

/**
 * Sets a new task's {@code due_at} in the todo projection, in the engine command that creates it: the
 * time its reminder fires, from the same policy and clock as the timer. Only where the task's process
 * version has the reminder timer at all: a run started on an earlier version keeps having no deadlines.
 * Registered after the projection's own listener, so the row it updates exists.
 */
@Component
class DueDates implements ActivitiEventListener {

    private final Deadlines deadlines;
    private final TaskProjection projection;

    DueDates(Deadlines deadlines, TaskProjection projection, RuntimeService runtime) {
        this.deadlines = deadlines;
        this.projection = projection;
        runtime.addEventListener(this, ActivitiEventType.TASK_CREATED);
    }

    @Override
    public void onEvent(ActivitiEvent event) {
        if (!(event instanceof ActivitiEntityEvent entityEvent) || !(entityEvent.getEntity() instanceof TaskEntity task)
                || task.getProcessInstanceId() == null || !hasReminder(task)) {
            return;
        }
        Duration after = deadlines.reminderDelay(task.getTaskDefinitionKey(), (String) task.getVariable(Deadlines.RISK_LEVEL));
        if (after != null) {
            projection.dueAt(task.getId(), Deadlines.engineNow().plus(after));
        }
    }

    private static boolean hasReminder(TaskEntity task) {
        return ProcessDefinitionUtil.getProcess(task.getProcessDefinitionId())
                .getFlowElement(task.getTaskDefinitionKey() + "Remind") instanceof BoundaryEvent;
    }

    @Override
    public boolean isFailOnException() {
        return true;
    }
}
