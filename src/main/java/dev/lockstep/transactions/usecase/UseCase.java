package dev.lockstep.transactions.usecase;

import dev.lockstep.platform.AreaApi;
import java.util.Locale;

/**
 * Every use case a client can start. Its name is written once here and read from here by the
 * command record ({@code workflow_command.command_type}) and the intent journal
 * ({@code recovery_intent.use_case}), so the two always agree.
 */
@AreaApi
public enum UseCase {

    /** A draft is business rows only: no process runs yet, so it commits locally (see {@link #businessOnly()}). */
    CREATE(Key.OPTIONAL, true),
    SUBMIT(Key.REQUIRED),
    WITHDRAW(Key.OPTIONAL),
    TERMINATE(Key.OPTIONAL),
    CLAIM(Key.NONE),
    UNCLAIM(Key.NONE),
    COMPLETE(Key.REQUIRED),
    RETURN(Key.REQUIRED),
    DELEGATE(Key.REQUIRED),
    RESOLVE(Key.REQUIRED),
    TRANSFER(Key.REQUIRED),
    ADD_SIGNER(Key.REQUIRED),
    REMOVE_SIGNER(Key.REQUIRED),
    /** Issue 30: an admin registers a business type, proposes a definition version, or decides on a proposal. */
    REGISTER_BUSINESS_TYPE(Key.OPTIONAL),
    PROPOSE_DEFINITION(Key.OPTIONAL),
    DECIDE_DEFINITION(Key.OPTIONAL);

    /**
     * Whether the use case takes an Idempotency-Key: it must, it may, or it needs none (claiming and unclaiming are
     * idempotent by themselves: a repeat finds the task already in the state asked for and changes nothing).
     */
    enum Key {
        REQUIRED, OPTIONAL, NONE
    }

    private final Key key;
    private final boolean businessOnly;

    UseCase(Key key) {
        this(key, false);
    }

    UseCase(Key key, boolean businessOnly) {
        this.key = key;
        this.businessOnly = businessOnly;
    }

    Key key() {
        return key;
    }

    /**
     * Whether the use case touches the business database alone and therefore runs in a local transaction
     * of it instead of a JTA one: its command record and its rows still commit together, and it pays no
     * coordinator log. Only for use cases that never reach the engine; one that does fails on this path.
     */
    boolean businessOnly() {
        return businessOnly;
    }

    /** The name in the command record, e.g. {@code ADD_SIGNER}. */
    public String commandType() {
        return name();
    }

    /** The name in the intent journal and the logs, e.g. {@code addSigner}. */
    public String journalName() {
        String[] words = name().toLowerCase(Locale.ROOT).split("_");
        StringBuilder name = new StringBuilder(words[0]);
        for (int i = 1; i < words.length; i++) {
            name.append(Character.toUpperCase(words[i].charAt(0))).append(words[i].substring(1));
        }
        return name.toString();
    }
}
