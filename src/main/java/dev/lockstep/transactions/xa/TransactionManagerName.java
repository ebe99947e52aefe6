package dev.lockstep.transactions.xa;

import dev.lockstep.platform.StartupCheckFailure;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * Rules for Atomikos's {@code tm_unique_name}. Atomikos claims an XID during recovery when its
 * branch qualifier starts with the node's name, so two names where one prefixes the other (node1,
 * node10) would recover each other's transactions. Requiring exactly one dot, in a final ".tm",
 * makes every valid name prefix-free: a name can only prefix another valid name plus digits if
 * both dots line up, which means the names are equal.
 */
public final class TransactionManagerName {

    public static final String SETTING = "lockstep.tm.unique-name";
    static final int MAX_BYTES = 40;
    private static final Pattern SHAPE = Pattern.compile("[A-Za-z0-9_-]+\\.tm");

    private TransactionManagerName() {
    }

    public static String validate(String name) {
        if (name == null || name.isBlank()) {
            throw new StartupCheckFailure(SETTING, "is missing; every node needs its own transaction manager name.",
                    "set " + SETTING + " (env LOCKSTEP_TM_UNIQUE_NAME) to a name unique per node, e.g. lockstep-1.tm.");
        }
        int bytes = name.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_BYTES) {
            throw new StartupCheckFailure(SETTING, "'" + name + "' is " + bytes + " bytes; Atomikos allows at most "
                    + MAX_BYTES + " because the name is part of every XID.", "choose a shorter name, e.g. lockstep-1.tm.");
        }
        if (!SHAPE.matcher(name).matches()) {
            throw new StartupCheckFailure(SETTING, "'" + name + "' could be a prefix of another node's name; Atomikos"
                    + " recovers every XID whose branch starts with this name, so node1 would take node10's transactions.",
                    "use letters, digits, '-' or '_' followed by the suffix '.tm' (one dot only), e.g. lockstep-1.tm.");
        }
        return name;
    }
}
