package dev.lockstep.recovery;

/** The action the evidence points to. */
public enum Recommendation {
    COMMIT,
    ROLLBACK,
    MANUAL
}
