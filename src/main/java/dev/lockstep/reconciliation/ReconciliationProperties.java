package dev.lockstep.reconciliation;

import dev.lockstep.platform.StartupCheckFailure;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings {@code lockstep.reconciliation.*}.
 *
 * @param enabled whether the scans run on the cluster scheduler (one node at a time); API-started runs
 *        work either way
 * @param incrementalInterval pause between two incremental runs
 * @param fullSweepInterval pause between two full sweeps
 * @param maxApplications applications one run checks at most
 * @param maxDuration time one run may take before it stops and leaves the rest to the next run
 * @param settle an application changed more recently than this is left for a later run: an action may
 *        still be between its two databases' commits
 * @param commandSla age after which a workflow_command still PROCESSING is a difference
 * @param outboxSla how long past its due time (or its lease's end) an outbox event may wait before it is stuck
 * @param pageSize applications a run reads evidence for at once (one query per kind of evidence for the page); at most
 *        1,000, the longest {@code in} list Oracle takes
 */
@ConfigurationProperties("lockstep.reconciliation")
public record ReconciliationProperties(@DefaultValue("true") boolean enabled, Duration incrementalInterval, Duration fullSweepInterval,
        int maxApplications, Duration maxDuration, Duration settle, Duration commandSla,
        Duration outboxSla, int pageSize) {

    static final int MAX_PAGE_SIZE = 1_000;

    public ReconciliationProperties {
        incrementalInterval = incrementalInterval == null ? Duration.ofMinutes(1) : incrementalInterval;
        fullSweepInterval = fullSweepInterval == null ? Duration.ofHours(1) : fullSweepInterval;
        maxApplications = maxApplications <= 0 ? 5_000 : maxApplications;
        maxDuration = maxDuration == null ? Duration.ofSeconds(60) : maxDuration;
        settle = settle == null ? Duration.ofSeconds(30) : settle;
        commandSla = commandSla == null ? Duration.ofMinutes(5) : commandSla;
        outboxSla = outboxSla == null ? Duration.ofMinutes(15) : outboxSla;
        pageSize = pageSize <= 0 ? 200 : pageSize;
        if (pageSize > MAX_PAGE_SIZE) {
            throw new StartupCheckFailure("lockstep.reconciliation.page-size", "is " + pageSize + ", above " + MAX_PAGE_SIZE
                    + " (the longest in-list Oracle accepts).", "set it between 1 and " + MAX_PAGE_SIZE + "; 200 is the default.");
        }
    }
}
