package dev.lockstep.orphans;

import dev.lockstep.recovery.DecodedXid;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * Decides whether a prepared branch is an orphan of this node's previous life. Atomikos makes every
 * gtrid as {@code tm_unique_name + System.currentTimeMillis() + a 5-digit counter} (its
 * {@code UniqueIdMgr}), so the gtrid tells when its transaction began. A branch of this node's name
 * that began before this process started cannot still be running here; if the coordinator log holds
 * no COMMITTING record for it, no commit was ever decided, and presumed abort says roll back.
 */
final class OwnOrphan {

    private static final int COUNTER_DIGITS = 5;
    static final String COMMITTING = "COMMITTING";

    private OwnOrphan() {
    }

    /**
     * Why the branch may be rolled back now, or empty when it must be left alone: not an Atomikos XID,
     * another node's, begun after this process started (or of unreadable shape), or with a COMMITTING
     * record (Atomikos commits those itself).
     */
    static Optional<String> reasonToRollBack(DecodedXid xid, String selfTm, Instant processStart,
            Map<String, String> pendingRecords) {
        if (!xid.isAtomikos() || !xid.ownerTm().filter(selfTm::equals).isPresent()) {
            return Optional.empty();
        }
        String gtrid = xid.gtridText();
        Optional<Instant> began = beganAt(gtrid, selfTm);
        if (began.isEmpty() || !began.get().isBefore(processStart)) {
            return Optional.empty();
        }
        String recorded = pendingRecords.get(gtrid);
        if (COMMITTING.equals(recorded)) {
            return Optional.empty();
        }
        return Optional.of("transaction " + gtrid + " of this node (" + selfTm + ") began at " + began.get()
                + ", before this process started at " + processStart + ", so it cannot still be running here; the"
                + " coordinator log holds " + (recorded == null ? "no record" : "only a " + recorded + " record")
                + " for it, no COMMITTING one: no commit was decided (presumed abort)");
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
