package dev.lockstep.approval;

/** Where one process run of an application ended; ACTIVE while it runs (at most one ACTIVE per application). */
public enum BindingStatus {
    ACTIVE, APPROVED, REJECTED, WITHDRAWN, TERMINATED
}
