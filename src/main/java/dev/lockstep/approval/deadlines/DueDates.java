package dev.lockstep.approval.deadlines;

import dev.lockstep.approval.todo.TaskProjection;
import java.time.Duration;
import java.time.Instant;
import org.activiti.bpmn.model.Activity;
import org.activiti.bpmn.model.BoundaryEvent;
import org.activiti.bpmn.model.TimerEventDefinition;
import org.activiti.engine.RuntimeService;
import org.activiti.engine.delegate.event.ActivitiEntityEvent;
import org.activiti.engine.delegate.event.ActivitiEvent;
import org.activiti.engine.delegate.event.ActivitiEventListener;
import org.activiti.engine.delegate.event.ActivitiEventType;
import org.activiti.engine.impl.persistence.entity.TaskEntity;
import org.activiti.engine.impl.util.ProcessDefinitionUtil;
import org.springframework.stereotype.Component;

/**
 * Sets a new task's reminder and escalation times in the todo projection, in the engine command that creates it,
 * from the step's policy on the engine's clock: the {@link DeadlineScan} fires them from there. Only where the
 * task's process version follows the deadline policy at all (its step has a boundary timer whose time bean
 * {@code deadlines} gives): a run started on a version deployed before deadlines existed keeps having none, and a
 * definition an organisation deployed has only its own literal deadlines. Registered after the projection's own
 * listener, so the row it updates exists.
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
                || task.getProcessInstanceId() == null || !followsPolicy(task)) {
            return;
        }
        String riskLevel = (String) task.getVariable(Deadlines.RISK_LEVEL);
        Duration remind = deadlines.reminderDelay(task.getTaskDefinitionKey(), riskLevel);
        Duration escalate = deadlines.escalationDelay(task.getTaskDefinitionKey(), riskLevel);
        if (remind != null || escalate != null) {
            Instant now = Deadlines.engineNow();
            projection.deadlines(task.getId(), remind == null ? null : now.plus(remind), escalate == null ? null : now.plus(escalate));
        }
    }

    private static boolean followsPolicy(TaskEntity task) {
        return ProcessDefinitionUtil.getProcess(task.getProcessDefinitionId()).getFlowElement(task.getTaskDefinitionKey())
                instanceof Activity step && step.getBoundaryEvents().stream().anyMatch(DueDates::policyTimer);
    }

    private static boolean policyTimer(BoundaryEvent boundary) {
        return boundary.getEventDefinitions().stream().anyMatch(definition -> definition instanceof TimerEventDefinition timer
                && timer.getTimeDuration() != null && timer.getTimeDuration().contains("deadlines."));
    }

    @Override
    public boolean isFailOnException() {
        return true;
    }
}
