package dev.lockstep.approval.deadlines;

import org.activiti.bpmn.model.EndEvent;
import org.activiti.bpmn.model.FlowElement;
import org.activiti.engine.impl.context.Context;
import org.activiti.engine.impl.interceptor.Command;
import org.activiti.engine.impl.interceptor.CommandContext;
import org.activiti.engine.impl.persistence.entity.ExecutionEntity;
import org.activiti.engine.impl.persistence.entity.ExecutionEntityManager;
import org.activiti.engine.impl.util.ProcessDefinitionUtil;

/**
 * Ends a run at one of its end events, as the final deadline's interrupting timer did on the versions that had one:
 * every execution below the process instance is cancelled with the reason (the step's tasks, a multi-instance with all
 * its instances), and one new execution enters the end event, whose start listener records the outcome.
 */
final class EndRunAtCmd implements Command<Void> {

    private final String processInstanceId;
    private final String endEventId;
    private final String reason;

    EndRunAtCmd(String processInstanceId, String endEventId, String reason) {
        this.processInstanceId = processInstanceId;
        this.endEventId = endEventId;
        this.reason = reason;
    }

    @Override
    public Void execute(CommandContext context) {
        ExecutionEntityManager executions = context.getExecutionEntityManager();
        ExecutionEntity processInstance = executions.findById(processInstanceId);
        if (processInstance == null) {
            throw new IllegalStateException("process " + processInstanceId + " to end at " + endEventId + " is no longer running");
        }
        FlowElement end = ProcessDefinitionUtil.getProcess(processInstance.getProcessDefinitionId()).getFlowElement(endEventId);
        if (!(end instanceof EndEvent)) {
            throw new IllegalStateException("process " + processInstanceId + " has no end event " + endEventId);
        }
        executions.cancelChildExecutions(processInstance, reason);
        ExecutionEntity ending = executions.createChildExecution(processInstance);
        ending.setCurrentFlowElement(end);
        ending.setActive(true);
        Context.getAgenda().planContinueProcessOperation(ending);
        return null;
    }
}
