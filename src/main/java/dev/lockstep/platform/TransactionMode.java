package dev.lockstep.platform;

/**
 * How the service commits the two databases of one use case ({@code lockstep.tm.transaction-mode}).
 */
@AreaApi
public enum TransactionMode {
    /** Two-phase commit under Atomikos: both databases commit, or neither does. The only production mode. */
    XA,
    /**
     * The chaos suite's negative control: each database commits on its own, one local commit per branch at the
     * moment the transaction manager would prepare it (best-effort one-phase, what teams without XA do). A crash
     * between the two commits splits the databases; that is what it is for. Refused at startup unless the Spring
     * profile {@code chaos} is active (docs/chaos.md).
     */
    LOCAL
}
