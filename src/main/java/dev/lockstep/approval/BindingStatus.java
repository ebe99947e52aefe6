package dev.lockstep.approval;

/** Where one process run of an application ended; ACTIVE while it runs (at most one ACTIVE per application). */
public enum BindingStatus {
    ACTIVE, APPROVED, REJECTED, WITHDRAWN, TERMINATED,
    /** A step's deadline sent the application back to its applicant (docs/operations.md, "Step deadlines"). */
    RETURNED
}
