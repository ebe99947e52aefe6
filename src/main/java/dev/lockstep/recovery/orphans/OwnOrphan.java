package dev.lockstep.recovery.orphans;

import dev.lockstep.transactions.xa.DecodedXid;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * Decides what to do with a prepared branch left by this node's previous life. Atomikos makes every
 * gtrid as {@code tm_unique_name + System.currentTimeMillis() + a 5-digit counter} (its
 * {@code UniqueIdMgr}), so the gtrid tells when its transaction began. A branch of this node's name
 * that began before this process started cannot still be running here: if the coordinator log holds
 * a COMMITTING record for it, commit was decided and is replayed; if not, no commit was ever decided,
 * and presumed abort says roll back.
 */
final class OwnOrphan {

    private static final int COUNTER_DIGITS = 5;
    static final String COMMITTING = "COMMITTING";

    private OwnOrphan() {
    }

    /**
     * Why the branch may be rolled back now, or empty when it must be left alone: not an Atomikos XID,
     * another node's, begun after this process started (or of unreadable shape), or with a COMMITTING
     * record ({@link #reasonToCommit}).
     */
    static Optional<String> reasonToRollBack(DecodedXid xid, String selfTm, Instant processStart,
            Map<String, String> pendingRecords) {
        Optional<Instant> began = beganInPreviousLife(xid, selfTm, processStart);
        String recorded = pendingRecords.get(xid.gtridText());
        if (began.isEmpty() || COMMITTING.equals(recorded)) {
            return Optional.empty();
        }
        return Optional.of("transaction " + xid.gtridText() + " of this node (" + selfTm + ") began at " + began.get()
                + ", before this process started at " + processStart + ", so it cannot still be running here; the"
                + " coordinator log holds " + (recorded == null ? "no record" : "only a " + recorded + " record")
                + " for it, no COMMITTING one: no commit was decided (presumed abort)");
    }

    /**
     * Why the branch must be committed now, or empty: only a branch of this node's previous life whose
     * commit decision is in the coordinator log. Atomikos would replay it only once the record expires (the
     * crashed JVM's transaction timeout), but presumes abort of a prepared XID it has watched for this JVM's
     * {@code max-timeout}: a restart with a shorter max-timeout than the crashed JVM's timeout would roll back
     * a branch whose sibling may already have committed. Replaying at startup closes that window.
     */
    static Optional<String> reasonToCommit(DecodedXid xid, String selfTm, Instant processStart, Map<String, String> pendingRecords) {
        Optional<Instant> began = beganInPreviousLife(xid, selfTm, processStart);
        if (began.isEmpty() || !COMMITTING.equals(pendingRecords.get(xid.gtridText()))) {
            return Optional.empty();
        }
        return Optional.of("transaction " + xid.gtridText() + " of this node (" + selfTm + ") began at " + began.get()
                + ", before this process started at " + processStart + "; the coordinator log holds its COMMITTING"
                + " record: commit was decided, so its prepared branch is committed (the logged decision replayed)");
    }

    /** When an Atomikos XID of this node began, if that was before this process started. */
    private static Optional<Instant> beganInPreviousLife(DecodedXid xid, String selfTm, Instant processStart) {
        if (!xid.isAtomikos() || !xid.ownerTm().filter(selfTm::equals).isPresent()) {
            return Optional.empty();
        }
        return beganAt(xid.gtridText(), selfTm).filter(began -> began.isBefore(processStart));
    }

    /** The begin time an Atomikos gtrid of {@code selfTm} carries, if it has that shape. */
    static Optional<Instant> beganAt(String gtrid, String selfTm) {
        if (!gtrid.startsWith(selfTm)) {
            return Optional.empty();
        }
        String digits = gtrid.substring(selfTm.length());
        if (digits.length() <= COUNTER_DIGITS || !digits.chars().allMatch(Character::isDigit)
                || digits.length() - COUNTER_DIGITS > 18) {
            return Optional.empty();
        }
        return Optional.of(Instant.ofEpochMilli(Long.parseLong(digits.substring(0, digits.length() - COUNTER_DIGITS))));
    }
}
