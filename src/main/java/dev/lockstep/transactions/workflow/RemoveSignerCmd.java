package dev.lockstep.transactions.workflow;

import org.activiti.engine.ActivitiException;
import org.activiti.engine.impl.context.Context;
import org.activiti.engine.impl.interceptor.Command;
import org.activiti.engine.impl.interceptor.CommandContext;
import org.activiti.engine.impl.persistence.entity.ExecutionEntity;
import org.activiti.engine.impl.persistence.entity.ExecutionEntityManager;
import org.activiti.engine.impl.persistence.entity.TaskEntity;

/**
 * 减签: cancels the instance of the running countersign step that one open signer task belongs to and
 * lowers the instance counts. The task is named, not the signer: whoever holds it now (after a transfer,
 * not the signer the instance was created for) is the signer being removed; the instance's {@code signer}
 * variable keeps the original signer, whose name leaves the signer list the policy counts. If that
 * decides the step (all remaining signers have signed, or the policy now holds), the step is left the
 * way the engine leaves a multi-instance activity whose completion condition passed: remaining
 * instances closed, the root continues along its outgoing flow.
 */
class RemoveSignerCmd implements Command<Void> {

    static final String DECIDED_REASON = "Multi-instance complete condition expression passed";

    private final String processInstanceId;
    private final String taskId;
    private final String reason;
    private final CountersignRule rule;

    RemoveSignerCmd(String processInstanceId, String taskId, String reason, CountersignRule rule) {
        this.processInstanceId = processInstanceId;
        this.taskId = taskId;
        this.reason = reason;
        this.rule = rule;
    }

    @Override
    public Void execute(CommandContext context) {
        CountersignStep step = CountersignStep.running(context, processInstanceId);
        ExecutionEntityManager executions = context.getExecutionEntityManager();
        TaskEntity task = context.getTaskEntityManager().findById(taskId);
        ExecutionEntity instance = step.children().stream()
                .filter(child -> child.isActive() && task != null && child.getId().equals(task.getExecutionId()))
                .findFirst()
                .orElseThrow(() -> new ActivitiException("task " + taskId + " is no open task of the countersign of " + processInstanceId));
        String originalSigner = (String) instance.getVariableLocal(CountersignStep.SIGNER);
        executions.cancelExecutionAndRelatedData(instance, reason);
        step.changeInstances(-1);
        step.changeSigners(signers -> signers.remove(originalSigner));
        if (step.loopVariable(CountersignStep.NR_OF_COMPLETED_INSTANCES) >= step.loopVariable(CountersignStep.NR_OF_INSTANCES)
                || rule.decided(step.root)) {
            for (ExecutionEntity child : step.children()) {
                if (!child.isDeleted()) {
                    executions.cancelExecutionAndRelatedData(child, DECIDED_REASON);
                }
            }
            step.root.setScope(false);
            step.root.setMultiInstanceRoot(false);
            Context.getAgenda().planTakeOutgoingSequenceFlowsOperation(step.root, true);
        }
        return null;
    }
}
