package dev.lockstep.transactions.workflow;

import dev.lockstep.platform.StartupCheckFailure;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The engine's async executor ({@code lockstep.engine.jobs.*}, docs/operations.md "Step deadlines"): it
 * runs the timer jobs of step deadlines, each firing one JTA transaction over both databases.
 *
 * <p>A job being executed is locked for {@code lockTime}; a node that dies with it leaves the lock,
 * which the reset (every {@code resetExpiredInterval}, on any node) clears once it has expired; the job
 * is then acquired again within {@code acquireWait}. So a firing lost in a crash fires again after at
 * most lockTime + resetExpiredInterval + acquireWait: 30 + 10 + 5 = 45 s with the defaults. Startup
 * refuses a sum over a minute, and a lock time that a firing waiting on the action fence could outlast.
 */
@ConfigurationProperties("lockstep.engine.jobs")
public record JobExecutorSettings(
        @DefaultValue("true") boolean enabled,
        @DefaultValue("30s") Duration lockTime,
        @DefaultValue("10s") Duration resetExpiredInterval,
        @DefaultValue("5s") Duration acquireWait,
        @DefaultValue("3") int retries) {

    static final Duration REFIRE_BOUND = Duration.ofMinutes(1);

    public JobExecutorSettings {
        if (lockTime.compareTo(ActionFence.PREDECESSOR_WAIT.multipliedBy(2)) < 0) {
            throw new StartupCheckFailure("lockstep.engine.jobs.lock-time", "is " + lockTime + "; a firing may wait up to "
                    + ActionFence.PREDECESSOR_WAIT.toSeconds() + " s on the action fence and would lose its lock while running.",
                    "set it to at least " + ActionFence.PREDECESSOR_WAIT.multipliedBy(2).toSeconds() + "s.");
        }
        if (lockTime.plus(resetExpiredInterval).plus(acquireWait).compareTo(REFIRE_BOUND) > 0) {
            throw new StartupCheckFailure("lockstep.engine.jobs.lock-time", "lock-time + reset-expired-interval + acquire-wait is "
                    + lockTime.plus(resetExpiredInterval).plus(acquireWait).toSeconds()
                    + " s; a timer firing lost in a crash must fire again within a minute.",
                    "shorten lockstep.engine.jobs.lock-time, reset-expired-interval or acquire-wait so that they add up to 60s or less.");
        }
        if (retries < 1) {
            throw new StartupCheckFailure("lockstep.engine.jobs.retries", "is " + retries + "; a firing must be tried at least once.",
                    "set it to 1 or more (default 3).");
        }
    }
}
