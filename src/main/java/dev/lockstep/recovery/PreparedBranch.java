package dev.lockstep.recovery;

import dev.lockstep.transactions.xa.DecodedXid;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * One prepared transaction branch found on one XA resource.
 *
 * @param resource the XA resource name ({@code business-db} or {@code workflow-db})
 * @param rawId what the database calls it: PostgreSQL's gid, Oracle's local transaction id
 * @param xid the decoded XID, empty when the id is not in a format we know
 * @param preparedAt when the database prepared it
 * @param dbOwner the database user that prepared it (COMMIT/ROLLBACK PREPARED must run as it or a superuser)
 * @param locks what this branch holds while it waits
 */
public record PreparedBranch(String resource, String rawId, Optional<DecodedXid> xid, Instant preparedAt,
        String dbOwner, List<BranchLock> locks) {

    /** Groups branches of one global transaction; an undecodable id is a group of its own. */
    public String groupKey() {
        return xid.map(DecodedXid::gtridText).orElse("raw:" + resource + ":" + rawId);
    }

    /** A lock held by a prepared branch (pg_locks), with the relation name where there is one. */
    public record BranchLock(String lockType, String mode, String relation) {
    }
}
