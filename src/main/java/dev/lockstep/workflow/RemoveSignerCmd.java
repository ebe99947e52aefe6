package dev.lockstep.workflow;

import org.activiti.engine.ActivitiException;
import org.activiti.engine.impl.context.Context;
import org.activiti.engine.impl.interceptor.Command;
import org.activiti.engine.impl.interceptor.CommandContext;
import org.activiti.engine.impl.persistence.entity.ExecutionEntity;
import org.activiti.engine.impl.persistence.entity.ExecutionEntityManager;

/**
 * 减签: cancels an outstanding signer's instance of the running countersign step and lowers the
 * instance counts. If that decides the step (all remaining signers have signed, or the policy now
 * holds), the step is left the way the engine leaves a multi-instance activity whose completion
 * condition passed: remaining instances closed, the root continues along its outgoing flow.
 */
class RemoveSignerCmd implements Command<Void> {

    static final String DECIDED_REASON = "Multi-instance complete condition expression passed";

    private final String processInstanceId;
    private final String signer;
    private final String reason;
    private final CountersignRule rule;

    RemoveSignerCmd(String processInstanceId, String signer, String reason, CountersignRule rule) {
        this.processInstanceId = processInstanceId;
        this.signer = signer;
        this.reason = reason;
        this.rule = rule;
    }

    @Override
    public Void execute(CommandContext context) {
        CountersignStep step = CountersignStep.running(context, processInstanceId);
        ExecutionEntityManager executions = context.getExecutionEntityManager();
        ExecutionEntity instance = step.children().stream()
                .filter(child -> child.isActive() && signer.equals(child.getVariableLocal(CountersignStep.SIGNER)))
                .findFirst()
                .orElseThrow(() -> new ActivitiException(signer + " has no outstanding countersign task"));
        executions.cancelExecutionAndRelatedData(instance, reason);
        step.changeInstances(-1);
        step.changeSigners(signers -> signers.remove(signer));
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
