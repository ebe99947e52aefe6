package dev.lockstep.transactions.usecase;

import dev.lockstep.platform.AreaApi;

/**
 * Records which business operation the current global transaction carries, where a DBA can read it
 * while its branches are prepared. Implemented by the recovery monitor's journal; absent where no XA
 * transaction manager runs (the single-database mode).
 */
@AreaApi
public interface IntentJournaling {

    /**
     * Called once per use case inside its active JTA transaction, as soon as the application is known.
     *
     * @return the global transaction id the intent is journaled under
     */
    String record(String useCase, String businessKey, String requestId, String userId);

    /**
     * The commit of {@code gtrid} ended with a heuristic outcome ({@code outcome}: mixed, unknown, ...):
     * its journal row must say so, not the COMMITTED the JTA completion callback reports.
     */
    void markHeuristic(String gtrid, String outcome);

    /**
     * Whether the transaction manager reported a heuristic outcome for a use case run under this
     * Idempotency-Key: its stored response (if any) must not be replayed as the truth.
     */
    boolean endedHeuristically(String requestId);
}
