package dev.lockstep.transactions.workflow;

import java.util.ArrayList;
import java.util.List;
import org.activiti.engine.ActivitiException;
import org.activiti.engine.impl.interceptor.CommandContext;
import org.activiti.engine.impl.persistence.entity.ExecutionEntity;

/**
 * The running countersign step of one process inside an engine command: its multi-instance root
 * execution, whose local loop variables (nrOfInstances, nrOfActiveInstances, nrOfCompletedInstances)
 * the engine's own completion logic reads, and the signer list the policy counts.
 */
final class CountersignStep {

    static final String ACTIVITY_ID = "countersign";
    static final String SIGNER = "signer";
    static final String NR_OF_INSTANCES = "nrOfInstances";
    static final String NR_OF_ACTIVE_INSTANCES = "nrOfActiveInstances";
    static final String NR_OF_COMPLETED_INSTANCES = "nrOfCompletedInstances";

    final CommandContext context;
    final ExecutionEntity root;

    private CountersignStep(CommandContext context, ExecutionEntity root) {
        this.context = context;
        this.root = root;
    }

    static CountersignStep running(CommandContext context, String processInstanceId) {
        return context.getExecutionEntityManager().findChildExecutionsByProcessInstanceId(processInstanceId).stream()
                .filter(execution -> execution.isMultiInstanceRoot() && ACTIVITY_ID.equals(execution.getActivityId()))
                .findFirst()
                .map(root -> new CountersignStep(context, root))
                .orElseThrow(() -> new ActivitiException("process " + processInstanceId + " has no running countersign step"));
    }

    List<ExecutionEntity> children() {
        return context.getExecutionEntityManager().findChildExecutionsByParentExecutionId(root.getId());
    }

    int loopVariable(String name) {
        return ((Number) root.getVariableLocal(name)).intValue();
    }

    void changeInstances(int delta) {
        root.setVariableLocal(NR_OF_INSTANCES, loopVariable(NR_OF_INSTANCES) + delta);
        root.setVariableLocal(NR_OF_ACTIVE_INSTANCES, loopVariable(NR_OF_ACTIVE_INSTANCES) + delta);
    }

    /** The signer list the policy counts, as the engine holds it now. */
    @SuppressWarnings("unchecked")
    List<String> signers() {
        return List.copyOf((List<String>) root.getVariable(CountersignRule.SIGNERS));
    }

    @SuppressWarnings("unchecked")
    void changeSigners(java.util.function.Consumer<List<String>> change) {
        List<String> signers = new ArrayList<>((List<String>) root.getVariable(CountersignRule.SIGNERS));
        change.accept(signers);
        root.setVariable(CountersignRule.SIGNERS, signers);
    }
}
