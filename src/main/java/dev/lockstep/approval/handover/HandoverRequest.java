package dev.lockstep.approval.handover;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Size;

/** Delegate or transfer a task to {@code userId}, or add / remove {@code userId} as a countersign signer. */
public record HandoverRequest(@NotBlank @Size(max = 64) String userId, @Size(max = 2000) String comment) {
}
