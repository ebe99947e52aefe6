package dev.lockstep.approval.decision;

import dev.lockstep.approval.Decision;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;

public record DecisionRequest(@NotNull Decision decision, @Size(max = 2000) String comment) {
}
