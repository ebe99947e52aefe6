package dev.lockstep.usecase;

/**
 * Records which business operation the current global transaction carries, where a DBA can read it
 * while its branches are prepared. Implemented by the recovery monitor's journal; absent where no XA
 * transaction manager runs (the single-database mode).
 */
public interface IntentJournaling {

    /** Called once per use case inside its active JTA transaction, as soon as the application is known. */
    void record(String useCase, String businessKey, String requestId, String userId);
}
