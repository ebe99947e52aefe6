package dev.lockstep.approval.deadlines;

import org.activiti.engine.delegate.DelegateExecution;
import org.activiti.engine.impl.util.ProcessDefinitionUtil;

/** One timer firing of a step deadline: the run it fired in (business key = application id) and the step. */
record Firing(long applicationId, String processInstanceId, String step, String stepName) {

    static Firing of(DelegateExecution execution, String step) {
        String stepName = ProcessDefinitionUtil.getProcess(execution.getProcessDefinitionId()).getFlowElement(step).getName();
        return new Firing(Long.parseLong(execution.getProcessInstanceBusinessKey()), execution.getProcessInstanceId(), step,
                stepName);
    }
}
