package dev.lockstep.platform.audit;

import dev.lockstep.platform.AreaApi;
import dev.lockstep.platform.security.Caller;
import java.util.Collection;
import java.util.stream.Collectors;

/**
 * What a caller records: who decided (their id and roles, comma-separated), what ({@code action}, an upper-case
 * name such as {@code TASK_APPROVED}), about which application, lifecycle and definition version (null where
 * none applies), under which request id and XA transaction, and a human-readable {@code detail}. The trail adds
 * the time, the clock that stamped it, the sequence number and the hashes.
 */
@AreaApi
public record AuditRecord(String actor, String actorRoles, String action, Long applicationId, Integer lifecycleNo,
        String definitionVersion, String requestId, String gtrid, String detail) {

    /**
     * A control action about no application (a console resolution, a repair, an archival batch); the actor's roles
     * are recorded when the actor is the caller of this thread's request, none for the service's own jobs.
     */
    public static AuditRecord control(String actor, String action, String gtrid, String detail) {
        return new AuditRecord(actor, rolesOf(actor), action, null, null, null, null, gtrid, detail);
    }

    /** The roles of {@code actor} when it is the authenticated caller on this thread, else null. */
    public static String rolesOf(String actor) {
        return Caller.ifAuthenticated().filter(caller -> caller.id().equals(actor)).map(caller -> roles(caller.roles()))
                .orElse(null);
    }

    /** A caller's roles as recorded: sorted and comma-separated, so the same roles always read (and hash) alike. */
    public static String roles(Collection<String> roles) {
        return roles.stream().sorted().collect(Collectors.joining(","));
    }
}
