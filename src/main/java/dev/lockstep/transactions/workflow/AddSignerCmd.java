package dev.lockstep.transactions.workflow;

import org.activiti.engine.impl.context.Context;
import org.activiti.engine.impl.interceptor.Command;
import org.activiti.engine.impl.interceptor.CommandContext;
import org.activiti.engine.impl.persistence.entity.ExecutionEntity;

/**
 * 加签: one more parallel instance of the running countersign step, created the way the engine's
 * ParallelMultiInstanceBehavior creates its instances, with the instance counts raised to match.
 */
class AddSignerCmd implements Command<Void> {

    private final String processInstanceId;
    private final String signer;

    AddSignerCmd(String processInstanceId, String signer) {
        this.processInstanceId = processInstanceId;
        this.signer = signer;
    }

    @Override
    public Void execute(CommandContext context) {
        CountersignStep step = CountersignStep.running(context, processInstanceId);
        int loopCounter = step.loopVariable(CountersignStep.NR_OF_INSTANCES);
        ExecutionEntity instance = context.getExecutionEntityManager().createChildExecution(step.root);
        instance.setCurrentFlowElement(step.root.getCurrentFlowElement());
        instance.setActive(true);
        instance.setScope(false);
        instance.setVariableLocal("loopCounter", loopCounter);
        instance.setVariableLocal(CountersignStep.SIGNER, signer);
        step.changeInstances(+1);
        step.changeSigners(signers -> signers.add(signer));
        Context.getAgenda().planContinueMultiInstanceOperation(instance);
        return null;
    }
}
