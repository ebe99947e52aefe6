package dev.lockstep.transactions.workflow;

import org.activiti.engine.delegate.DelegateExecution;
import org.springframework.stereotype.Component;

/**
 * The routing decision after a step a process was returned to (bean {@code returnRouting} in the
 * BPMN): with JUMP_BACK the process goes straight back to where the return came from; the flow
 * taken there removes the variable again, so the next pass follows the normal path.
 */
@Component("returnRouting")
public class ReturnRouting {

    public boolean jumpsBackTo(DelegateExecution execution, String activityId) {
        return activityId.equals(execution.getVariable(ReturnToStepCmd.JUMP_BACK_TO));
    }

    /** Execution listener on the jump-back flows. */
    public void jumpedBack(DelegateExecution execution) {
        execution.removeVariable(ReturnToStepCmd.JUMP_BACK_TO);
    }
}
