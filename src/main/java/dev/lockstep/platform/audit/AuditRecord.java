package dev.lockstep.platform.audit;

/**
 * What a caller records: who decided (their id and roles, comma-separated), what ({@code action}, an upper-case
 * name such as {@code TASK_APPROVED}), about which application, lifecycle and definition version (null where
 * none applies), under which request id and XA transaction, and a human-readable {@code detail}. The trail adds
 * the time, the clock that stamped it, the sequence number and the hashes.
 */
public record AuditRecord(String actor, String actorRoles, String action, Long applicationId, Integer lifecycleNo,
        String definitionVersion, String requestId, String gtrid, String detail) {

    /** A control action about no application (a console resolution, a repair, an archival batch). */
    public static AuditRecord control(String actor, String action, String gtrid, String detail) {
        return new AuditRecord(actor, null, action, null, null, null, null, gtrid, detail);
    }
}
