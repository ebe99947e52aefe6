package dev.lockstep.platform.audit.evidence;

import dev.lockstep.platform.audit.AuditEntry;
import java.time.Instant;

/** One application's decisions as an HTML page an auditor reads without tools: a table, oldest first. */
final class ApplicationTimeline {

    static final String TAIL = "</tbody></table>\n</body></html>\n";

    private ApplicationTimeline() {
    }

    static String head(long applicationId, String installationId, Instant exportedAt) {
        return """
                <!DOCTYPE html>
                <html lang="en"><head><meta charset="utf-8"><title>Application %1$d: audit timeline</title>
                <style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #999;\
                padding:4px 8px;vertical-align:top;text-align:left}code{font-size:90%%}</style></head><body>
                <h1>Application %1$d</h1>
                <p>Every decision and control action the audit trail holds about this application, oldest first.
                Installation <code>%2$s</code>, exported %3$s. This page is a reading aid: what proves the entries
                unaltered is <code>java -jar lockstep.jar verify</code> on the whole bundle (README.txt).</p>
                <table><thead><tr><th>#</th><th>When (clock)</th><th>Who (roles)</th><th>What</th><th>Step and detail</th>
                <th>Lifecycle</th><th>Definition version</th><th>Request id</th><th>XA transaction (gtrid)</th></tr></thead><tbody>
                """.formatted(applicationId, escape(installationId), exportedAt);
    }

    static String row(AuditEntry entry) {
        return "<tr><td>" + entry.seq() + "</td><td>" + entry.at() + cell(entry.clockSource(), " (", ")") + "</td><td>"
                + escape(entry.actor()) + cell(entry.actorRoles(), " (", ")") + "</td><td>" + escape(entry.action())
                + "</td><td>" + escape(entry.detail()) + "</td><td>" + cell(entry.lifecycleNo(), "", "") + "</td><td>"
                + cell(entry.definitionVersion(), "", "") + "</td><td>" + cell(entry.requestId(), "<code>", "</code>")
                + "</td><td>" + cell(entry.gtrid(), "<code>", "</code>") + "</td></tr>\n";
    }

    private static String cell(Object value, String before, String after) {
        return value == null ? "" : before + escape(value.toString()) + after;
    }

    private static String escape(String text) {
        return text == null ? "" : text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
