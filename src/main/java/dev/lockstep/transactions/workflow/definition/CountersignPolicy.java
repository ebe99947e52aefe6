package dev.lockstep.transactions.workflow.definition;

import dev.lockstep.platform.AreaApi;
import dev.lockstep.transactions.workflow.Countersign.Policy;
import java.math.BigDecimal;

/**
 * The policy a definition's countersign step declares ({@code lockstep:policy}, and {@code lockstep:ratio} for RATIO
 * only): part of the version the second admin approves, so an applicant names the signers but not how they decide.
 */
@AreaApi
public record CountersignPolicy(Policy policy, BigDecimal ratio) {

    /** The attributes as written on the step; an {@link IllegalArgumentException} says what is wrong with them. */
    static CountersignPolicy parse(String policy, String ratio) {
        Policy parsed;
        try {
            parsed = Policy.valueOf(policy == null ? "" : policy);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the countersign step declares lockstep:policy as ALL, ONE_VETO or RATIO");
        }
        if ((parsed == Policy.RATIO) != (ratio != null)) {
            throw new IllegalArgumentException("lockstep:ratio is required for the RATIO policy and only for it");
        }
        if (ratio == null) {
            return new CountersignPolicy(parsed, null);
        }
        BigDecimal value;
        try {
            value = new BigDecimal(ratio.strip());
        } catch (NumberFormatException e) {
            value = BigDecimal.ZERO;
        }
        if (value.signum() <= 0 || value.compareTo(BigDecimal.ONE) > 0 || value.stripTrailingZeros().scale() > 2) {
            throw new IllegalArgumentException("lockstep:ratio is a number above 0 and at most 1, with at most two decimals (0.67)");
        }
        return new CountersignPolicy(parsed, value.setScale(2));
    }
}
