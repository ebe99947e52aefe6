package dev.lockstep.approval;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Size;

/** Delegate or transfer a task to {@code userId}; resolving a delegation takes no user. */
public record HandoverRequest(@NotBlank @Size(max = 64) String userId, @Size(max = 2000) String comment) {
}
