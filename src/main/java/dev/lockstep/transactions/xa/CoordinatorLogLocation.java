package dev.lockstep.transactions.xa;

import dev.lockstep.platform.LockstepProperties;
import dev.lockstep.platform.StartupCheckFailure;

/**
 * Where the coordinator log lives is part of the node's identity: it alone knows which of the node's
 * prepared transactions were decided to commit. In external mode it must be an explicitly configured
 * absolute path — {@code ./var/atomikos} relative to wherever the process happened to start would,
 * after a restart from another directory, be a new empty log, and every logged commit decision lost.
 */
public final class CoordinatorLogLocation {

    static final String SETTING = "lockstep.tm.log-dir";

    private CoordinatorLogLocation() {
    }

    public static void verify(LockstepProperties properties) {
        if (properties.mode() != LockstepProperties.Mode.EXTERNAL) {
            return;
        }
        String fix = "set " + SETTING + " (env LOCKSTEP_TM_LOG_DIR) to an absolute directory on persistent storage that"
                + " this node alone uses and that survives restarts and redeployments, e.g. /var/lib/lockstep/atomikos.";
        if (properties.tm().logDir() == null) {
            throw new StartupCheckFailure(SETTING, "is not set; in external mode the coordinator log must have a configured"
                    + " place (the default under lockstep.home is for the embedded demo).", fix);
        }
        if (!properties.tm().logDir().isAbsolute()) {
            throw new StartupCheckFailure(SETTING, "is the relative path " + properties.tm().logDir() + ", which depends on"
                    + " the directory the process starts in.", fix);
        }
    }
}
