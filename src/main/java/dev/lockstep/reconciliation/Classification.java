package dev.lockstep.reconciliation;

/** How a difference is handled (seed 000 section 30): repaired automatically, or an incident for people. */
public enum Classification {
    /** Inside the safe boundary: the evidence is certain and a public API or the project's own code repairs it. */
    REPAIRABLE,
    /** Outside it: opened as an incident that freezes the application until it is closed. */
    INCIDENT
}
