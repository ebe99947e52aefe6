package dev.lockstep.history.archive;

import java.time.Duration;
import java.time.ZoneId;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * History archival (docs/operations.md, "History archival").
 *
 * @param enabled false registers no scheduled job (the admin endpoint still runs batches on demand)
 * @param minAge a process is archived once it ended longer ago than this
 * @param batchSize process instances moved per batch, each batch one XA transaction
 * @param batchTimeLimit a batch that has run this long commits the processes it has moved and leaves the rest of its
 *        batch to the next one, so it stays inside the XA transaction timeout however slow the engine's deletion is;
 *        unset, a third of {@code lockstep.tm.default-timeout} ({@link #withBatchTimeLimitWithin})
 * @param pauseBetweenBatches rest between two batches of one run, so the databases serve users in between
 * @param interval pause between two scheduled runs
 * @param windowStartHour first hour of the quiet window in which scheduled runs move history (0-23)
 * @param windowEndHour hour the quiet window ends (0-23, exclusive; equal to the start: all day)
 * @param windowZone time zone of the window's hours
 */
@ConfigurationProperties("lockstep.archival")
public record ArchivalProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue("180d") Duration minAge,
        @DefaultValue("50") int batchSize,
        Duration batchTimeLimit,
        @DefaultValue("1s") Duration pauseBetweenBatches,
        @DefaultValue("10m") Duration interval,
        @DefaultValue("1") int windowStartHour,
        @DefaultValue("5") int windowEndHour,
        @DefaultValue("UTC") ZoneId windowZone) {

    /**
     * These settings with the batch time limit filled in when it is not set: a third of the transaction timeout
     * (10 s of the default 30 s), which leaves the batch's last process, its audit entry and the two-phase commit
     * room before the timeout, and follows a shorter timeout instead of refusing to start.
     */
    ArchivalProperties withBatchTimeLimitWithin(Duration transactionTimeout) {
        return batchTimeLimit != null ? this
                : new ArchivalProperties(enabled, minAge, batchSize, transactionTimeout.dividedBy(3), pauseBetweenBatches, interval,
                        windowStartHour, windowEndHour, windowZone);
    }

    QuietWindow window() {
        return new QuietWindow(windowStartHour, windowEndHour, windowZone);
    }
}
