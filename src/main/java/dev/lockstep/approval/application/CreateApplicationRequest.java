package dev.lockstep.approval.application;

import dev.lockstep.approval.RiskLevel;
import dev.lockstep.transactions.workflow.Countersign;
import jakarta.validation.Valid;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Digits;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.Size;
import java.math.BigDecimal;

/** {@code countersign}: optional; when present the application runs the countersign process instead of the standard chain. */
public record CreateApplicationRequest(
        @NotBlank @Size(max = 200) String title,
        @Size(max = 4000) String description,
        @NotNull @Positive Long assetId,
        @NotNull @DecimalMin("0.00") @Digits(integer = 17, fraction = 2) BigDecimal amount,
        @NotNull RiskLevel riskLevel,
        @NotNull Boolean sensitive,
        @Valid Countersign countersign) {
}
