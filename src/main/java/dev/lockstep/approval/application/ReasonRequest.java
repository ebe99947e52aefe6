package dev.lockstep.approval.application;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Size;

/** Why an application is withdrawn or terminated; kept in closed_reason and the process history. */
public record ReasonRequest(@NotBlank @Size(max = 1000) String reason) {
}
