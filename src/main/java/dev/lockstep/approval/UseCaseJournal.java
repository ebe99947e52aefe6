package dev.lockstep.approval;

import dev.lockstep.operations.TransactionLogContext;
import dev.lockstep.recovery.IntentJournal;
import dev.lockstep.security.Caller;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Component;

/**
 * Marks the start of a use case inside its global transaction: log lines carry the gtrid and the
 * application id from here on, and the in-doubt monitor can tell a DBA which business operation a
 * prepared transaction carried (the journal is absent where no XA transaction manager runs).
 */
@Component
class UseCaseJournal {

    private final ObjectProvider<IntentJournal> intents;

    UseCaseJournal(ObjectProvider<IntentJournal> intents) {
        this.intents = intents;
    }

    void enter(String useCase, long applicationId, String requestId, Caller caller) {
        String businessKey = Long.toString(applicationId);
        TransactionLogContext.bind(businessKey);
        intents.ifAvailable(journal -> journal.record(useCase, businessKey, requestId, caller.id()));
    }
}
