package dev.lockstep.transactions.xa;

import dev.lockstep.platform.LockstepProperties;
import dev.lockstep.platform.StartupCheckFailure;
import dev.lockstep.transactions.xa.log.GroupCommitLogFactory;

/**
 * Where the coordinator log lives is part of the node's identity: it alone knows which of the node's
 * prepared transactions were decided to commit. {@value #STORE_SETTING} chooses a file or the business
 * database. A file log in external mode must be an explicitly configured
 * absolute path — {@code ./var/atomikos} relative to wherever the process happened to start would,
 * after a restart from another directory, be a new empty log, and every logged commit decision lost.
 * The database log needs no directory for correctness (Atomikos still puts its lock-free working files under
 * {@code lockstep.home}).
 */
public final class CoordinatorLogLocation {

    static final String SETTING = "lockstep.tm.log-dir";
    static final String STORE_SETTING = GroupCommitLogFactory.LOG_SETTING;

    private CoordinatorLogLocation() {
    }

    public static void verify(LockstepProperties properties) {
        String store = GroupCommitLogFactory.storeOf(properties);
        if (!GroupCommitLogFactory.DATABASE.equals(store) && !GroupCommitLogFactory.FILE.equals(store)) {
            throw new StartupCheckFailure(STORE_SETTING, "is '" + store + "'; the coordinator log is kept in a file or"
                    + " in the business database.", "set " + STORE_SETTING + " (env LOCKSTEP_TM_LOG) to "
                    + GroupCommitLogFactory.FILE + " or " + GroupCommitLogFactory.DATABASE + ".");
        }
        if (GroupCommitLogFactory.DATABASE.equals(store)) {
            String directory = properties.tmLogDir().toAbsolutePath().toString();
            GroupCommitLogFactory.refuseSwitchLeaving(store, GroupCommitLogFactory.pendingInFileLog(directory), directory);
            return;
        }
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
