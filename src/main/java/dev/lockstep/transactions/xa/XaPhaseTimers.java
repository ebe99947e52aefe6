package dev.lockstep.transactions.xa;

import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import javax.transaction.xa.Xid;

/**
 * Where an XA commit spends its time, as Micrometer timers with Prometheus histograms:
 * {@code lockstep_xa_branch_seconds{phase, resource}} per branch call (prepare, commit-two-phase,
 * commit-one-phase, rollback; resource business-db or workflow-db), and
 * {@code lockstep_xa_decision_seconds}: from the end of a transaction's last prepare to the start
 * of its first two-phase commit, which is the coordinator writing and forcing its COMMITTING record.
 * Recorded into Micrometer's global registry, to which Boot adds the application's registries.
 *
 * <p>With parallel commit ({@code lockstep.tm.parallel-commit}) the branch calls of one transaction run at
 * the same time on Atomikos's threads. The prepares' ends are merged into one entry per transaction with
 * {@code max}, atomically and in whatever order they arrive; of the commits, the first to reach
 * {@link #secondPhaseStarts} takes the entry (an atomic remove) and records the one decision interval. Two
 * commits that start within microseconds of each other may reach it in the other order: the interval then
 * ends at the later start, off by that much. The interval also holds the two hand-offs between Atomikos's
 * threads and the committing thread (the last vote waking the coordinator, the commit reaching a thread).
 */
final class XaPhaseTimers {

    static final String BRANCH = "lockstep.xa.branch";
    static final String DECISION = "lockstep.xa.decision";

    enum Phase {
        PREPARE("prepare"), COMMIT_TWO_PHASE("commit-two-phase"), COMMIT_ONE_PHASE("commit-one-phase"), ROLLBACK("rollback");

        final String tag;

        Phase(String tag) {
            this.tag = tag;
        }
    }

    /** End of the latest prepare per global transaction still between its phases. */
    private static final Map<GlobalId, Long> PREPARED_AT = new ConcurrentHashMap<>();

    private XaPhaseTimers() {
    }

    static void branch(String resource, Phase phase, long startNanos, long endNanos) {
        timer(BRANCH, "Time of one XA branch call, per phase and resource", "phase", phase.tag, "resource", resource)
                .record(endNanos - startNanos, TimeUnit.NANOSECONDS);
    }

    static void prepared(Xid xid, long endNanos) {
        PREPARED_AT.merge(new GlobalId(xid), endNanos, Math::max);
    }

    /** The first second-phase call of a prepared transaction ends its decision interval. */
    static void secondPhaseStarts(Xid xid, boolean commit, long startNanos) {
        Long prepared = PREPARED_AT.remove(new GlobalId(xid));
        if (prepared != null && commit) {
            timer(DECISION, "From the last prepare's end to the first commit's start: the coordinator's decision log write")
                    .record(startNanos - prepared, TimeUnit.NANOSECONDS);
        }
    }

    private static Timer timer(String name, String description, String... tags) {
        return Timer.builder(name).description(description).tags(tags).publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1).dividedBy(20)).maximumExpectedValue(Duration.ofSeconds(30))
                .register(Metrics.globalRegistry);
    }

    private record GlobalId(int format, byte[] gtrid) {

        GlobalId(Xid xid) {
            this(xid.getFormatId(), xid.getGlobalTransactionId());
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof GlobalId id && id.format == format && Arrays.equals(id.gtrid, gtrid);
        }

        @Override
        public int hashCode() {
            return 31 * format + Arrays.hashCode(gtrid);
        }
    }
}
