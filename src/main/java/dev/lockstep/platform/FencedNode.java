package dev.lockstep.platform;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node that finds a newer lease epoch on its transaction-manager name: another instance owns the name, its
 * transactions and its coordinator log now. This one must not decide or resolve anything more, so it stops at once
 * with {@link #EXIT_CODE}, and a supervisor sees a failure, not a clean stop.
 */
@AreaApi
public final class FencedNode {

    public static final int EXIT_CODE = 3;
    private static final Logger log = LoggerFactory.getLogger(FencedNode.class);

    private FencedNode() {
    }

    /**
     * Logs why and exits. The exit runs on a thread of its own: the caller (a coordinator log write, the heartbeat)
     * returns first, so Atomikos rolls back the transaction whose decision was refused, while the shutdown stops the
     * web server from taking more work.
     */
    public static void stop(String tmName, long ownEpoch, Object currentEpoch) {
        String message = "FENCED: transaction manager name " + tmName + " is held under lease epoch " + currentEpoch
                + ", this node holds epoch " + ownEpoch + ": another instance has taken the name over. This node stops"
                + " (exit code " + EXIT_CODE + ") and decides nothing more.";
        log.error(message);
        Thread exit = new Thread(() -> System.exit(EXIT_CODE), "lockstep-fenced-exit");
        exit.start();
    }
}
