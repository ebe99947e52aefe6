package dev.lockstep.transactions.workflow;

import org.activiti.bpmn.model.FlowNode;
import org.activiti.engine.ActivitiIllegalArgumentException;
import org.activiti.engine.impl.context.Context;
import org.activiti.engine.impl.interceptor.Command;
import org.activiti.engine.impl.interceptor.CommandContext;
import org.activiti.engine.impl.persistence.entity.ExecutionEntity;
import org.activiti.engine.impl.persistence.entity.ExecutionEntityManager;
import org.activiti.engine.impl.persistence.entity.TaskEntity;

/**
 * 任意节点驳回: sends a running process back from an open task to an earlier step (seed 003's jump
 * command, made safe for parallel sections). Every execution below the process instance is
 * cancelled with the reason — the task's own, sibling branches with their tasks, and the inactive
 * executions waiting at a join, which would otherwise make the join fire early or hang, and a
 * multi-instance root with all its instances and loop variables — and one
 * new execution starts at the target's entry: the user task, or the fork of the parallel section
 * it runs in. The mode stays with the process as {@link #JUMP_BACK_TO}, read by the routing gateway
 * after the target step.
 */
class ReturnToStepCmd implements Command<Void> {

    /** Process variable: where to go straight back to once the returned-to step is redone (JUMP_BACK only). */
    static final String JUMP_BACK_TO = "jumpBackTo";

    private final String taskId;
    private final String targetId;
    private final ReturnMode mode;
    private final String reason;

    ReturnToStepCmd(String taskId, String targetId, ReturnMode mode, String reason) {
        this.taskId = taskId;
        this.targetId = targetId;
        this.mode = mode;
        this.reason = reason;
    }

    @Override
    public Void execute(CommandContext context) {
        TaskEntity task = ReturnTargetsCmd.openTask(context, taskId);
        ReturnTargets targets = ReturnTargetsCmd.targetsOf(task);
        boolean allowed = targets.allowed(task.getTaskDefinitionKey(),
                ReturnTargetsCmd.completedUserTasks(context, task.getProcessInstanceId())).stream()
                .anyMatch(target -> target.id().equals(targetId));
        if (!allowed) {
            throw new ActivitiIllegalArgumentException("task " + taskId + " cannot be returned to " + targetId);
        }
        ExecutionEntityManager executions = context.getExecutionEntityManager();
        ExecutionEntity processInstance = executions.findById(task.getProcessInstanceId());
        if (mode == ReturnMode.JUMP_BACK) {
            processInstance.setVariableLocal(JUMP_BACK_TO, targets.entryOf(targets.node(task.getTaskDefinitionKey())).getId());
        } else {
            processInstance.removeVariableLocal(JUMP_BACK_TO);
        }
        executions.cancelChildExecutions(processInstance, reason);
        FlowNode entry = targets.node(targetId);
        ExecutionEntity restart = executions.createChildExecution(processInstance);
        restart.setCurrentFlowElement(entry);
        restart.setActive(true);
        Context.getAgenda().planContinueProcessOperation(restart);
        return null;
    }
}
