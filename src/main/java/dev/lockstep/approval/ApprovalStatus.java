package dev.lockstep.approval;

/** The approval state machine (seed 000 section 2): DRAFT → SUBMITTING → APPROVING → APPROVED | REJECTED | CANCELED. */
public enum ApprovalStatus {
    DRAFT, SUBMITTING, APPROVING, APPROVED, REJECTED, CANCELED
}
