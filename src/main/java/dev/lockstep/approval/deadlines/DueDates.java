package dev.lockstep.approval.deadlines;

import dev.lockstep.approval.todo.FinalDeadlines;
import dev.lockstep.approval.todo.TaskProjection;
import dev.lockstep.transactions.workflow.ReturnTargets;
import java.time.Duration;
import java.time.Instant;
import org.activiti.bpmn.model.Activity;
import org.activiti.bpmn.model.BoundaryEvent;
import org.activiti.bpmn.model.FlowElement;
import org.activiti.bpmn.model.TimerEventDefinition;
import org.activiti.engine.RepositoryService;
import org.activiti.engine.RuntimeService;
import org.activiti.engine.delegate.event.ActivitiEntityEvent;
import org.activiti.engine.delegate.event.ActivitiEvent;
import org.activiti.engine.delegate.event.ActivitiEventListener;
import org.activiti.engine.delegate.event.ActivitiEventType;
import org.activiti.engine.impl.persistence.entity.TaskEntity;
import org.activiti.engine.impl.util.ProcessDefinitionUtil;
import org.activiti.engine.task.Task;
import org.springframework.stereotype.Component;

/**
 * Sets a new task's reminder, escalation and final deadline times in the todo projection, in the engine command that
 * creates it, from the step's policy, counted from the task's creation time (the engine's clock): the
 * {@link DeadlineScan} fires them from there. Only where the task's process version follows the deadline policy at
 * all: its step is marked {@code lockstep:deadlines="policy"}, or, on a built-in version deployed before the scan fired
 * final deadlines, it has a final-deadline timer whose time bean {@code deadlines} gives (that timer stays the
 * engine's, so such a step gets no final time here). A run started on a version deployed before deadlines existed
 * keeps having none, and a definition an organisation deployed has only its own literal deadlines. Registered after
 * the projection's own listener, so the row it updates exists.
 */
@Component
class DueDates implements ActivitiEventListener, FinalDeadlines {

    /** The mark of a step whose deadlines follow the policy and are all fired by the scan. */
    private static final String MARK = "deadlines";
    private static final String MARK_VALUE = "policy";

    private final Deadlines deadlines;
    private final TaskProjection projection;
    private final RuntimeService runtime;
    private final RepositoryService repository;

    DueDates(Deadlines deadlines, TaskProjection projection, RuntimeService runtime, RepositoryService repository) {
        this.deadlines = deadlines;
        this.projection = projection;
        this.runtime = runtime;
        this.repository = repository;
        runtime.addEventListener(this, ActivitiEventType.TASK_CREATED);
    }

    @Override
    public void onEvent(ActivitiEvent event) {
        if (!(event instanceof ActivitiEntityEvent entityEvent) || !(entityEvent.getEntity() instanceof TaskEntity task)
                || task.getProcessInstanceId() == null) {
            return;
        }
        FlowElement step = ProcessDefinitionUtil.getProcess(task.getProcessDefinitionId()).getFlowElement(task.getTaskDefinitionKey());
        boolean marked = isMarked(step);
        if (!marked && !hasPolicyTimer(step)) {
            return;
        }
        String riskLevel = (String) task.getVariable(Deadlines.RISK_LEVEL);
        Duration remind = deadlines.reminderDelay(task.getTaskDefinitionKey(), riskLevel);
        Duration escalate = deadlines.escalationDelay(task.getTaskDefinitionKey(), riskLevel);
        Duration end = marked ? deadlines.finalDelay(task.getTaskDefinitionKey(), riskLevel) : null;
        if (remind != null || escalate != null || end != null) {
            Instant created = task.getCreateTime().toInstant();
            projection.deadlines(task.getId(), after(created, remind), after(created, escalate), after(created, end));
        }
    }

    @Override
    public Instant of(Task task) {
        FlowElement step = repository.getBpmnModel(task.getProcessDefinitionId()).getMainProcess()
                .getFlowElement(task.getTaskDefinitionKey());
        if (step == null || !isMarked(step)) {
            return null;
        }
        String riskLevel = (String) runtime.getVariable(task.getProcessInstanceId(), Deadlines.RISK_LEVEL);
        return after(task.getCreateTime().toInstant(), deadlines.finalDelay(task.getTaskDefinitionKey(), riskLevel));
    }

    private static Instant after(Instant created, Duration delay) {
        return delay == null ? null : created.plus(delay);
    }

    private static boolean isMarked(FlowElement step) {
        return MARK_VALUE.equals(step.getAttributeValue(ReturnTargets.LOCKSTEP_NS, MARK));
    }

    private static boolean hasPolicyTimer(FlowElement step) {
        return step instanceof Activity activity && activity.getBoundaryEvents().stream().anyMatch(DueDates::policyTimer);
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
