package dev.lockstep.recovery;

/** What kind of in-doubt transaction a DBA is looking at. */
public enum InDoubtClass {
    /** Young and owned by a live node: its manager is about to finish it. Hands off. */
    IN_FLIGHT,
    /** Its live owner has a decision or the duty to recover it and will finish it. */
    BEING_RECOVERED,
    /** Nobody will finish it: owner unknown or gone, or its log lost. Needs a DBA. */
    ORPHAN,
    /** Branches disagree (one committed, another prepared) or the manager reported a heuristic outcome. */
    ANOMALY
}
