package dev.lockstep.recovery;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * One global transaction with prepared branches, as classified at one scan.
 *
 * @param gtrid the global id as text (or {@code raw:<resource>:<gid>} for an id we cannot decode)
 * @param ownerTm the tm_unique_name that created it, null when unknown
 * @param ownerAlive whether that node is this one or has a fresh heartbeat
 * @param coordinatorState the state in this node's recovery log, null when absent or not our XID
 * @param missingResources resources of Lockstep that were scanned and hold no prepared branch of it
 * @param unknownResources what could not be read at this scan (a resource, the coordinator log, ...), with
 *        the reason: for a resource, whether it holds a branch of this transaction is UNKNOWN
 * @param intent the business intent journal rows for this gtrid
 */
public record InDoubtTransaction(
        String gtrid,
        String ownerTm,
        boolean ownerAlive,
        InDoubtClass classification,
        Recommendation recommendation,
        List<String> evidence,
        Instant oldestPreparedAt,
        Duration age,
        String coordinatorState,
        List<PreparedBranch> branches,
        List<String> missingResources,
        Map<String, String> unknownResources,
        List<Map<String, Object>> intent) {

    public InDoubtTransaction withIntent(List<Map<String, Object>> rows) {
        return new InDoubtTransaction(gtrid, ownerTm, ownerAlive, classification, recommendation, evidence,
                oldestPreparedAt, age, coordinatorState, branches, missingResources, unknownResources, rows);
    }

    /** Whether a DBA must keep hands off: a live owner inside its recovery window. */
    public boolean protectedByLiveOwner(Duration ownerWindow) {
        return ownerAlive && age.compareTo(ownerWindow) < 0;
    }
}
