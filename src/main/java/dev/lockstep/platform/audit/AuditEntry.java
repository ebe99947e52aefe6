package dev.lockstep.platform.audit;

import dev.lockstep.platform.AreaApi;
import java.time.Instant;

/**
 * One entry of the hash-chained audit trail as stored in {@code recovery_audit} and as exported to auditors.
 * {@code format} 1: written before the trail carried its context (the fields from {@code clockSource} on are
 * null and not hashed); 2: every field hashed ({@link AuditEntryFormat}).
 */
@AreaApi
public record AuditEntry(long seq, int format, Instant at, String clockSource, String actor, String actorRoles,
        String action, Long applicationId, Integer lifecycleNo, String definitionVersion, String requestId, String gtrid,
        String detail, String prevHash, String hash) {

    /** The hash this entry's content and predecessor give, by its own format. */
    public String recomputedHash() {
        return AuditEntryFormat.hash(prevHash, AuditEntryFormat.canonical(this));
    }
}
