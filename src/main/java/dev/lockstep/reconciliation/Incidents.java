package dev.lockstep.reconciliation;

import dev.lockstep.platform.web.ApiException;
import dev.lockstep.publishing.delivery.CatalogClient;
import java.sql.Timestamp;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.http.HttpStatus;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.json.JsonMapper;

/**
 * Differences only people may resolve (seed 000 section 31). An incident is opened under the application's
 * row lock and freezes every action on the application until it is CLOSED (the actions check the table under
 * the same lock). Each step is a guarded update OPEN → PROPOSED → APPROVED → EXECUTED → CLOSED, in one XA
 * transaction with its audit entry; the approver must differ from the proposer (a table constraint too).
 */
class Incidents {

    /** What an approved proposal does when executed. */
    enum Fix {
        /** The evidence was reviewed and nothing is to change (the difference was explained). */
        CLOSE_WITHOUT_CHANGE,
        /** Apply the rule's safe repair now, if the evidence, read again, allows it. */
        SAFE_REPAIR,
        /** Done by hand through a public API or compensation; the executor records the command and the check. */
        MANUAL
    }

    private final ReconciliationTransaction transaction;
    private final EvidenceReader reader;
    private final CatalogEvidence catalog;
    private final SafeRepairs repairs;
    private final JdbcTemplate plain;
    private final ReconciliationDialect dialect;
    private final JsonMapper json;
    private final Clock clock;

    Incidents(ReconciliationTransaction transaction, EvidenceReader reader, CatalogEvidence catalog, SafeRepairs repairs,
            JdbcTemplate plain, ReconciliationDialect dialect, JsonMapper json, Clock clock) {
        this.transaction = transaction;
        this.reader = reader;
        this.catalog = catalog;
        this.repairs = repairs;
        this.plain = plain;
        this.dialect = dialect;
        this.json = json;
        this.clock = clock;
    }

    /**
     * Opens an incident for what {@code rule} found on {@code detected} unless the rule, checked again under the row lock
     * (with the catalog's answers of detection: the catalog is never called in the transaction), no longer finds it or
     * one is already open for the application and rule. Returns the id of a newly opened incident.
     */
    Optional<Long> open(ReconciliationRule rule, Evidence detected, Long runId, String actor) {
        long applicationId = detected.applicationId();
        return transaction.run(work -> {
            work.lockApplication(applicationId);
            Optional<Evidence> now = work.sql(business -> reader.read(business, applicationId))
                    .map(read -> read.withCatalog(detected.publication().catalog()));
            Optional<Finding> again = now.flatMap(rule::check).filter(f -> f.classification() == Classification.INCIDENT);
            if (again.isEmpty()) {
                return Optional.<Long>empty();
            }
            Optional<Long> opened = work.sql(business -> dialect.insertIncident(business, applicationId,
                    again.get().processInstanceId(), again.get().processDefinitionId(), rule.id(), truncate(again.get().difference()),
                    json.writeValueAsString(now.get()), actor, now()));
            if (opened.isEmpty()) {
                return Optional.<Long>empty();
            }
            work.audit(actor, "INCIDENT_OPENED", applicationId, "incident #" + opened.get() + " application " + applicationId + " rule "
                    + rule.id() + " (run " + runId + "): " + again.get().difference());
            return opened;
        });
    }

    List<Map<String, Object>> list(String state, String ruleId, Long applicationId) {
        return plain.queryForList("""
                select * from reconciliation_incident
                 where (cast(? as varchar(16)) is null or state = ?) and (cast(? as varchar(64)) is null or rule_id = ?)
                   and (cast(? as numeric(19)) is null or application_id = ?)
                 order by id desc fetch first 500 rows only
                """, state, state, ruleId, ruleId, applicationId, applicationId);
    }

    Map<String, Object> get(long id) {
        List<Map<String, Object>> rows = plain.queryForList("select * from reconciliation_incident where id = ?", id);
        if (rows.isEmpty()) {
            throw ApiException.notFound("INCIDENT_NOT_FOUND", "There is no reconciliation incident " + id + ".");
        }
        return rows.get(0);
    }

    void propose(long id, Fix fix, String note, String actor) {
        get(id);
        if (fix == Fix.SAFE_REPAIR && !SafeRepairs.RULES.contains((String) get(id).get("rule_id"))) {
            throw ApiException.badRequest("NO_SAFE_REPAIR", "Rule " + get(id).get("rule_id")
                    + " has no safe repair; propose CLOSE_WITHOUT_CHANGE or MANUAL.");
        }
        step(id, "PROPOSED", "OPEN", actor, "INCIDENT_PROPOSED", fix + (note == null ? "" : ": " + note), """
                update reconciliation_incident set state = 'PROPOSED', proposed_fix = ?, proposal_note = ?, proposed_by = ?,
                       proposed_at = ? where id = ? and state = 'OPEN'
                """, fix.name(), note, actor, now(), id);
    }

    void approve(long id, String actor) {
        if (actor.equals(get(id).get("proposed_by"))) {
            throw ApiException.forbidden("FOUR_EYES_REQUIRED", "Incident " + id + " was proposed by " + actor
                    + "; another operator must approve it.");
        }
        step(id, "APPROVED", "PROPOSED", actor, "INCIDENT_APPROVED", "approved", """
                update reconciliation_incident set state = 'APPROVED', approved_by = ?, approved_at = ?
                 where id = ? and state = 'PROPOSED' and proposed_by <> ?
                """, actor, now(), id, actor);
    }

    /**
     * Executes the approved fix under the application's row lock, records before/after and a verification (the rules
     * run again on the evidence after the fix, plus what the executor reports for a manual fix).
     */
    void execute(long id, String commandUsed, String reportedVerification, String actor) {
        Map<String, Object> incident = get(id);
        Fix fix = incident.get("proposed_fix") == null ? null : Fix.valueOf((String) incident.get("proposed_fix"));
        if (!"APPROVED".equals(incident.get("state"))) {
            throw ApiException.conflict("INCIDENT_NOT_APPROVED", "Incident " + id + " is " + incident.get("state")
                    + "; only an APPROVED proposal can be executed.");
        }
        if (fix == Fix.MANUAL && (blank(commandUsed) || blank(reportedVerification))) {
            throw ApiException.badRequest("MANUAL_FIX_UNRECORDED", "A manual fix needs commandUsed (the public API or"
                    + " compensation used) and verification (how the result was checked).");
        }
        long applicationId = ((Number) incident.get("application_id")).longValue();
        String ruleId = (String) incident.get("rule_id");
        // the catalog's answers now, before the transaction that must not call it
        Map<String, CatalogClient.Lookup> catalogNow = reader.read(plain, applicationId).map(catalog::attach)
                .map(read -> read.publication().catalog()).orElse(Map.of());
        String refusal = transaction.run(work -> {
            work.lockApplication(applicationId);
            if (work.sql(business -> business.update(
                    "update reconciliation_incident set state = state where id = ? and state = 'APPROVED'", id)) == 0) {
                return "INCIDENT_NOT_APPROVED";
            }
            Evidence before = work.sql(business -> reader.read(business, applicationId)).orElseThrow().withCatalog(catalogNow);
            String command = switch (fix) {
                case CLOSE_WITHOUT_CHANGE -> "none: evidence reviewed, no change";
                case MANUAL -> commandUsed;
                case SAFE_REPAIR -> safeRepair(work, id, ruleId, before, actor);
            };
            if (command == null) {
                work.audit(actor, "INCIDENT_EXECUTION_REFUSED", applicationId, "incident #" + id + ": the safe repair of " + ruleId
                        + " does not apply to the evidence as it is now");
                return "REPAIR_NOT_SAFE";
            }
            Evidence after = work.sql(business -> reader.read(business, applicationId)).orElseThrow();
            String verification = (blank(reportedVerification) ? "" : reportedVerification + "; ") + "rules after the fix: "
                    + differences(after);
            work.sql(business -> business.update("""
                    update reconciliation_incident set state = 'EXECUTED', executed_by = ?, executed_at = ?, command_used = ?,
                           before_state = ?, after_state = ?, verification = ? where id = ? and state = 'APPROVED'
                    """, actor, now(), truncate(command), json.writeValueAsString(before), json.writeValueAsString(after),
                    truncate(verification), id));
            work.audit(actor, "INCIDENT_EXECUTED", applicationId, "incident #" + id + " " + fix + ": " + command + "; " + verification);
            return null;
        });
        if (refusal != null) {
            throw ApiException.conflict(refusal, refusal.equals("REPAIR_NOT_SAFE")
                    ? "The safe repair of rule " + ruleId + " does not apply to application " + applicationId
                            + " as it is now; nothing was written. Propose a MANUAL fix instead."
                    : "Incident " + id + " is no longer APPROVED.");
        }
    }

    void close(long id, String actor) {
        step(id, "CLOSED", "EXECUTED", actor, "INCIDENT_CLOSED", "closed; the application's actions are no longer frozen", """
                update reconciliation_incident set state = 'CLOSED', closed_by = ?, closed_at = ? where id = ? and state = 'EXECUTED'
                """, actor, now(), id);
    }

    private String safeRepair(ReconciliationTransaction.Work work, long incidentId, String ruleId, Evidence before, String actor) {
        Optional<Finding> finding = BuiltInRules.byId(ruleId).check(before)
                .filter(f -> f.classification() == Classification.REPAIRABLE);
        if (finding.isEmpty()) {
            return null;
        }
        SafeRepairs.Outcome outcome = repairs.repairIn(work, finding.get(), before, null, incidentId, actor);
        return outcome == SafeRepairs.Outcome.APPLIED ? "safe repair " + ruleId + " (see reconciliation_repair)" : null;
    }

    private void step(long id, String to, String from, String actor, String auditAction, String detail, String sql,
            Object... args) {
        Map<String, Object> incident = get(id);
        boolean moved = transaction.run(work -> {
            if (work.sql(business -> business.update(sql, args)) == 0) {
                return false;
            }
            work.audit(actor, auditAction, ((Number) incident.get("application_id")).longValue(), "incident #" + id + " application " + incident.get("application_id") + ": " + detail);
            return true;
        });
        if (!moved) {
            throw new ApiException(HttpStatus.CONFLICT, "INCIDENT_STATE_CONFLICT", "Incident " + id + " is "
                    + get(id).get("state") + "; it must be " + from + " to become " + to + ".");
        }
    }

    private static String differences(Evidence evidence) {
        List<String> found = new ArrayList<>();
        for (ReconciliationRule rule : BuiltInRules.ALL) {
            rule.check(evidence).ifPresent(f -> found.add(f.ruleId()));
        }
        return found.isEmpty() ? "none" : String.join(", ", found);
    }

    private Timestamp now() {
        return Timestamp.from(clock.instant());
    }

    private static boolean blank(String text) {
        return text == null || text.isBlank();
    }

    private static String truncate(String text) {
        return text.length() <= 2000 ? text : text.substring(0, 1997) + "...";
    }
}
