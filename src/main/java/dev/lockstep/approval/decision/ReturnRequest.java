package dev.lockstep.approval.decision;

import dev.lockstep.transactions.workflow.ReturnMode;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;

/** 驳回: the earlier step to send the application back to (one of GET /api/tasks/{id}/return-targets), how to continue, and why. */
public record ReturnRequest(@NotBlank @Size(max = 128) String targetActivityId, @NotNull ReturnMode mode,
        @NotBlank @Size(max = 1000) String reason) {
}
