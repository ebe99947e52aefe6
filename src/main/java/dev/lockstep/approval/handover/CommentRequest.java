package dev.lockstep.approval.handover;

import jakarta.validation.constraints.Size;

public record CommentRequest(@Size(max = 2000) String comment) {
}
