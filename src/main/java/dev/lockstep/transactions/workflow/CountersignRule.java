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
     * The step's result, APPROVED or REJECTED, set once the tally decides it (null while it runs): what a deployed
     * definition's conditions route on after its countersign step, as the built-in process asks {@link #approved}.
     */
    public static final String RESULT = "countersignResult";

    /**
     * Take listener on every flow into the countersign: the step starts with no decisions counted, also
     * when it is entered again after a return cancelled a round that had counted some.
     */
    public void open(DelegateExecution execution) {
        execution.setVariable(APPROVALS, 0);
        execution.setVariable(REJECTIONS, 0);
        execution.setVariable(RESULT, null);
    }

    /** Task listener on complete: the signer's decision has just been set as {@code decision}. */
    public void count(DelegateExecution execution, String decision) {
        String tally = "APPROVE".equals(decision) ? APPROVALS : REJECTIONS;
        execution.setVariable(tally, number(execution, tally) + 1);
        if (decided(execution)) {
            execution.setVariable(RESULT, approved(execution) ? "APPROVED" : "REJECTED");
        }
    }

    /** Completion condition: once true, the engine closes the outstanding sibling tasks. */
    public boolean decided(DelegateExecution execution) {
        return tally(execution).decided();
    }

    /**
     * Whether the step would be decided if one signer left the list now, with no new decision: the check that keeps
     * a removal (减签) from deciding the step by itself.
     */
    boolean decidedWithoutOneSigner(DelegateExecution execution) {
        return tally(execution).withoutOneSigner().decided();
    }

    public boolean approved(DelegateExecution execution) {
        Tally tally = tally(execution);
        return tally.policy() == Policy.RATIO ? tally.approvals() >= tally.required() : tally.rejections() == 0;
    }

    /**
     * The policy's minimum number of distinct deciders: what it needs to approve, counted on the signers the applicant
     * named ({@code declared}, stored with the application): ALL and ONE_VETO every one of them, RATIO
     * ceil(ratio × named). Additions may raise the signer list above it; a removal may not take the list below it.
     */
    static int minimumDeciders(Countersign declared) {
        int named = declared.signers().size();
        return declared.policy() == Policy.RATIO ? required(declared.ratio(), named) : named;
    }

    private static Tally tally(DelegateExecution execution) {
        Policy policy = Policy.valueOf((String) execution.getVariable(POLICY));
        int signers = ((Collection<?>) execution.getVariable(SIGNERS)).size();
        BigDecimal ratio = policy == Policy.RATIO ? new BigDecimal(execution.getVariable(RATIO).toString()) : null;
        return new Tally(policy, ratio, signers, number(execution, APPROVALS), number(execution, REJECTIONS));
    }

    private static int required(BigDecimal ratio, int signers) {
        return ratio.multiply(BigDecimal.valueOf(signers)).setScale(0, RoundingMode.CEILING).intValueExact();
    }

    private static int number(DelegateExecution execution, String name) {
        return ((Number) execution.getVariable(name)).intValue();
    }

    private record Tally(Policy policy, BigDecimal ratio, int signers, int approvals, int rejections) {

        int required() {
            return policy == Policy.RATIO ? CountersignRule.required(ratio, signers) : signers;
        }

        boolean decided() {
            return switch (policy) {
                case ALL -> approvals + rejections == signers;
                case ONE_VETO -> rejections > 0 || approvals == signers;
                case RATIO -> approvals >= required() || signers - rejections < required();
            };
        }

        Tally withoutOneSigner() {
            return new Tally(policy, ratio, signers - 1, approvals, rejections);
        }
    }
}
