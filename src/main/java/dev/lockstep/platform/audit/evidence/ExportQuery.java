package dev.lockstep.platform.audit.evidence;

import dev.lockstep.platform.audit.AuditEntry;
import dev.lockstep.platform.web.ApiException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import tools.jackson.databind.node.ObjectNode;

/** What an export selects: one application's entries, or the entries stamped in [from, to). */
record ExportQuery(Long applicationId, Instant from, Instant to) {

    /** Exactly one of the two filters, well-formed, or a 400 naming what is wrong. */
    static ExportQuery of(String applicationId, String from, String to) {
        boolean byApplication = applicationId != null;
        boolean byTime = from != null || to != null;
        if (byApplication == byTime) {
            throw ApiException.badRequest("AUDIT_EXPORT_FILTER", "Give either applicationId or both from and to (ISO-8601"
                    + " instants such as 2026-01-01T00:00:00Z), not " + (byApplication ? "both." : "neither."));
        }
        if (byApplication) {
            try {
                return new ExportQuery(Long.parseLong(applicationId), null, null);
            } catch (NumberFormatException e) {
                throw ApiException.badRequest("AUDIT_EXPORT_APPLICATION_ID", "applicationId must be a number, not '" + applicationId + "'.");
            }
        }
        if (from == null || to == null) {
            throw ApiException.badRequest("AUDIT_EXPORT_FILTER", "A time range needs both from and to.");
        }
        Instant start = instant("from", from);
        Instant end = instant("to", to);
        if (!start.isBefore(end)) {
            throw ApiException.badRequest("AUDIT_EXPORT_RANGE", "from (" + start + ") must be before to (" + end + ").");
        }
        return new ExportQuery(null, start, end);
    }

    private static Instant instant(String name, String value) {
        try {
            return Instant.parse(value);
        } catch (DateTimeParseException e) {
            throw ApiException.badRequest("AUDIT_EXPORT_INSTANT", name + " must be an ISO-8601 instant such as"
                    + " 2026-01-01T00:00:00Z, not '" + value + "'.").with("parameter", name);
        }
    }

    boolean selects(AuditEntry entry) {
        return applicationId != null ? applicationId.equals(entry.applicationId())
                : !entry.at().isBefore(from) && entry.at().isBefore(to);
    }

    ObjectNode json() {
        ObjectNode query = BundleFormat.JSON.createObjectNode();
        return applicationId != null ? query.put("application_id", applicationId)
                : query.put("from", from.toString()).put("to", to.toString());
    }
}
