package dev.lockstep.transactions.workflow;

import dev.lockstep.platform.AreaApi;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Digits;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import java.math.BigDecimal;
import java.util.List;

/**
 * A countersign (会签) step: every signer gets their own task in parallel, and the policy decides when
 * the step is decided. {@code ratio} only for {@link Policy#RATIO}. {@code managerReview}: a manager
 * approval runs before the countersign (absent = false), and the signers may return the application to it.
 */
@AreaApi
public record Countersign(
        @NotEmpty @Size(max = 20) List<@NotBlank @Size(max = 64) @Pattern(regexp = "[^,]+") String> signers,
        @NotNull Policy policy,
        @DecimalMin(value = "0.00", inclusive = false) @DecimalMax("1.00") @Digits(integer = 1, fraction = 2) BigDecimal ratio,
        Boolean managerReview) {

    public Countersign {
        managerReview = Boolean.TRUE.equals(managerReview);
    }

    public enum Policy {
        /** Every signer decides; approved only if all approved. */
        ALL,
        /** The first rejection rejects at once; approved when all approved. */
        ONE_VETO,
        /** Approved as soon as approvals reach ratio × signers; rejected as soon as that can no longer happen. */
        RATIO
    }
}
