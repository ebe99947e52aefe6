package dev.lockstep.approval;

import jakarta.validation.constraints.Size;

public record CommentRequest(@Size(max = 2000) String comment) {
}
