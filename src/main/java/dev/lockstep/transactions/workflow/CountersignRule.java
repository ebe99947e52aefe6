package dev.lockstep.transactions.workflow;

import dev.lockstep.transactions.workflow.Countersign.Policy;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Collection;
import org.activiti.engine.delegate.DelegateExecution;
import org.springframework.stereotype.Component;

/**
 * The countersign policies as the BPMN calls them (bean name {@code countersign}): counting each
 * signer's decision, the multi-instance completion condition, and the step's result. Tallies are
 * process variables, changed only inside engine commands that the application row lock serializes.
 */
@Component("countersign")
public class CountersignRule {

    static final String SIGNERS = "signers";
    static final String POLICY = "countersignPolicy";
    static final String RATIO = "countersignRatio";
    static final String APPROVALS = "approvals";
    static final String REJECTIONS = "rejections";
    static final String MANAGER_REVIEW = "managerReview";

    /**
     * Take listener on every flow into the countersign: the step starts with no decisions counted, also
     * when it is entered again after a return cancelled a round that had counted some.
     */
    public void open(DelegateExecution execution) {
        execution.setVariable(APPROVALS, 0);
        execution.setVariable(REJECTIONS, 0);
    }

    /** Task listener on complete: the signer's decision has just been set as {@code decision}. */
    public void count(DelegateExecution execution, String decision) {
        String tally = "APPROVE".equals(decision) ? APPROVALS : REJECTIONS;
        execution.setVariable(tally, number(execution, tally) + 1);
    }

    /** Completion condition: once true, the engine closes the outstanding sibling tasks. */
    public boolean decided(DelegateExecution execution) {
        Tally tally = tally(execution);
        return switch (tally.policy()) {
            case ALL -> tally.approvals() + tally.rejections() == tally.signers();
            case ONE_VETO -> tally.rejections() > 0 || tally.approvals() == tally.signers();
            case RATIO -> tally.approvals() >= tally.required() || tally.signers() - tally.rejections() < tally.required();
        };
    }

    public boolean approved(DelegateExecution execution) {
        Tally tally = tally(execution);
        return tally.policy() == Policy.RATIO ? tally.approvals() >= tally.required() : tally.rejections() == 0;
    }

    private static Tally tally(DelegateExecution execution) {
        Policy policy = Policy.valueOf((String) execution.getVariable(POLICY));
        int signers = ((Collection<?>) execution.getVariable(SIGNERS)).size();
        int required = policy == Policy.RATIO
                ? new BigDecimal(execution.getVariable(RATIO).toString()).multiply(BigDecimal.valueOf(signers))
                        .setScale(0, RoundingMode.CEILING).intValueExact()
                : signers;
        return new Tally(policy, signers, required, number(execution, APPROVALS), number(execution, REJECTIONS));
    }

    private static int number(DelegateExecution execution, String name) {
        return ((Number) execution.getVariable(name)).intValue();
    }

    private record Tally(Policy policy, int signers, int required, int approvals, int rejections) {
    }
}
