package dev.lockstep.transactions.usecase;

import dev.lockstep.platform.AreaApi;
import dev.lockstep.platform.security.Caller;
import dev.lockstep.transactions.monitoring.TransactionLogContext;
import java.util.Optional;
import java.util.function.Supplier;

/** One running use case, as the code inside its transaction sees it: what it is, who asked, under which key. */
@AreaApi
public final class UseCaseCall {

    private static final ThreadLocal<UseCaseCall> RUNNING = new ThreadLocal<>();

    private final UseCase useCase;
    private final String requestId;
    private final Caller caller;
    private final Optional<IntentJournaling> journal;
    private String journaledGtrid;

    UseCaseCall(UseCase useCase, String requestId, Caller caller, Optional<IntentJournaling> journal) {
        this.useCase = useCase;
        this.requestId = requestId;
        this.caller = caller;
        this.journal = journal;
    }

    /**
     * The use case running on this thread: for code that is not handed the call but records under its request id
     * (a separation-of-duties refusal's audit entry).
     */
    public static Optional<UseCaseCall> running() {
        return Optional.ofNullable(RUNNING.get());
    }

    <T> T running(Supplier<T> work) {
        UseCaseCall outer = RUNNING.get();
        RUNNING.set(this);
        try {
            return work.get();
        } finally {
            if (outer == null) {
                RUNNING.remove();
            } else {
                RUNNING.set(outer);
            }
        }
    }

    public UseCase useCase() {
        return useCase;
    }

    /** The client's Idempotency-Key, or null where the use case ran without one. */
    public String requestId() {
        return requestId;
    }

    public Caller caller() {
        return caller;
    }

    /**
     * Names the application this use case acts on, once it is known: log lines carry its id from here
     * on, and the intent journal records the operation before the two-phase commit starts.
     */
    public void actsOn(long applicationId) {
        String businessKey = Long.toString(applicationId);
        TransactionLogContext.bind(businessKey);
        journal.ifPresent(intents -> journaledGtrid = intents.record(useCase.journalName(), businessKey, requestId, caller.id()));
    }

    /** The commit ended heuristically: the intent journal row of this use case says so. */
    void endedHeuristically(String outcome) {
        if (journaledGtrid != null) {
            journal.ifPresent(intents -> intents.markHeuristic(journaledGtrid, outcome));
        }
    }
}
