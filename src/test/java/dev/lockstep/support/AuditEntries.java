package dev.lockstep.support;

import java.util.List;
import java.util.Map;

/**
 * The audit trail's entries about one application, read with plain SQL: those already in the chain and those still
 * waiting in the intake (a decision's entry joins the chain in the {@code audit-chain} job's next batch). One
 * statement, so an entry being chained meanwhile is read once, from one side or the other.
 */
public final class AuditEntries {

    private static final String COLUMNS = "action, actor, actor_roles, application_id, lifecycle_no, definition_version,"
            + " request_id, gtrid, clock_source, detail";

    private AuditEntries() {
    }

    /** Oldest first within each side; compare as a multiset where order between sides does not matter. */
    public static List<Map<String, Object>> of(TestDatabases db, long applicationId) {
        return db.business().queryForList("select " + COLUMNS + " from recovery_audit where application_id = ?"
                + " union all select " + COLUMNS + " from recovery_audit_intake where application_id = ? and chained_seq is null",
                applicationId, applicationId);
    }

    /** The entries of {@code action} about the application. */
    public static List<Map<String, Object>> of(TestDatabases db, long applicationId, String action) {
        return of(db, applicationId).stream().filter(entry -> action.equals(entry.get("action"))).toList();
    }
}
