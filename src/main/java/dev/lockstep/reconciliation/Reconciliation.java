package dev.lockstep.reconciliation;

import dev.lockstep.platform.web.ApiException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Reconciliation runs (seed 000 section 28). A run walks application ids in keyset order from its kind's
 * watermark, wrapping round once, so successive bounded runs cover every application; it stops at
 * {@code max-applications} or {@code max-duration} and stores where it got to. Evidence is read a page of applications
 * at a time ({@code page-size}, one query per kind of evidence for the whole page), outside any XA transaction; every rule
 * judges each application's evidence; a repairable difference is repaired (its own XA
 * transaction, re-checked under the row lock), anything else becomes an incident. An application with an open
 * incident is frozen: its differences are counted, not acted on. Runs execute one at a time on a single thread,
 * never inside a caller's transaction.
 */
public class Reconciliation {

    private static final Logger log = LoggerFactory.getLogger(Reconciliation.class);
    static final String SYSTEM_ACTOR = "reconciliation";

    enum Kind { INCREMENTAL, FULL }

    private final List<ReconciliationRule> rules;
    private final EvidenceReader reader;
    private final CatalogEvidence catalog;
    private final SafeRepairs repairs;
    private final Incidents incidents;
    private final ReconciliationSignals signals;
    private final JdbcTemplate plain;
    private final ExecutorService executor;
    private final ReconciliationProperties settings;
    private final ReconciliationDialect dialect;
    private final Clock clock;

    Reconciliation(List<ReconciliationRule> rules, EvidenceReader reader, CatalogEvidence catalog, SafeRepairs repairs,
            Incidents incidents, ReconciliationSignals signals, JdbcTemplate plain, ExecutorService executor,
            ReconciliationProperties settings, ReconciliationDialect dialect, Clock clock) {
        this.rules = rules;
        this.reader = reader;
        this.catalog = catalog;
        this.repairs = repairs;
        this.incidents = incidents;
        this.signals = signals;
        this.plain = plain;
        this.executor = executor;
        this.settings = settings;
        this.dialect = dialect;
        this.clock = clock;
    }

    /** Queues a run on the reconciliation thread (an operator's, through the API); returns its id. */
    long start(Kind kind, String requestedBy) {
        long id = queue(kind, requestedBy);
        executor.execute(() -> execute(id, kind));
        return id;
    }

    /**
     * Runs one on the calling thread, a job of the cluster scheduler: the run lasts as long as the job does, so the
     * scheduler's one-node-at-a-time covers the run itself, not only its start. {@code node} is recorded as requester.
     */
    long runAsScheduledJob(Kind kind, String node) {
        long id = queue(kind, "scheduler@" + node);
        execute(id, kind);
        return id;
    }

    private long queue(Kind kind, String requestedBy) {
        return dialect.insertReturningId(plain, """
                insert into reconciliation_run (kind, state, requested_by, requested_at) values (?, 'QUEUED', ?, ?)
                """, kind.name(), requestedBy, Timestamp.from(clock.instant())).orElseThrow();
    }

    Map<String, Object> run(long id) {
        List<Map<String, Object>> rows = plain.queryForList("select * from reconciliation_run where id = ?", id);
        if (rows.isEmpty()) {
            throw ApiException.notFound("RUN_NOT_FOUND", "There is no reconciliation run " + id + ".");
        }
        Map<String, Object> run = new LinkedHashMap<>(rows.get(0));
        run.put("rules", plain.queryForList(
                "select rule_id, differences, repaired, incidents from reconciliation_run_rule where run_id = ? order by rule_id", id));
        return run;
    }

    /** Per-rule tallies of one run. */
    private static final class Tally {
        int differences;
        int repaired;
        int incidents;
    }

    private void execute(long runId, Kind kind) {
        Instant started = clock.instant();
        plain.update("update reconciliation_run set state = 'RUNNING', started_at = ? where id = ?", Timestamp.from(started), runId);
        Map<String, Tally> tallies = new LinkedHashMap<>();
        rules.forEach(rule -> tallies.put(rule.id(), new Tally()));
        // a full sweep starts at the beginning; an incremental run resumes where the last one stopped
        long from = kind == Kind.FULL ? 0 : watermark();
        int scanned = 0;
        Long last = null;
        try {
            Instant deadline = started.plus(settings.maxDuration());
            List<Long> ids = nextIds(from, Long.MAX_VALUE);
            boolean wrapped = false;
            while (scanned < settings.maxApplications() && clock.instant().isBefore(deadline)) {
                if (ids.isEmpty()) {
                    if (wrapped || from == 0) {
                        break;
                    }
                    wrapped = true;
                    ids = nextIds(0, from);
                    continue;
                }
                // evidence only for as many applications as the run may still check
                List<Long> page = ids.subList(0, Math.min(ids.size(), settings.maxApplications() - scanned));
                Map<Long, Evidence> evidence = reader.readPage(plain, page);
                Set<Long> frozen = frozen(page);
                for (long applicationId : page) {
                    if (!clock.instant().isBefore(deadline)) {
                        break;
                    }
                    check(runId, applicationId, evidence.get(applicationId), frozen.contains(applicationId), tallies);
                    scanned++;
                    last = applicationId;
                }
                ids = last == null ? List.of() : nextIds(last, wrapped ? from : Long.MAX_VALUE);
            }
            if (last != null && kind == Kind.INCREMENTAL) {
                saveWatermark(last);
            }
            finish(runId, "SUCCEEDED", from, last, scanned, tallies, null);
        } catch (RuntimeException e) {
            log.error("reconciliation run {} failed after {} applications", runId, scanned, e);
            finish(runId, "FAILED", from, last, scanned, tallies, String.valueOf(e.getMessage()));
        }
    }

    /** The next page of application ids in keyset order. */
    private List<Long> nextIds(long after, long upToInclusive) {
        return plain.queryForList("select id from application where id > ? and id <= ? order by id fetch first %d rows only"
                .formatted(settings.pageSize()), Long.class, after, upToInclusive);
    }

    /** The applications of {@code page} with an incident not yet closed: their differences are counted, not acted on. */
    private Set<Long> frozen(List<Long> page) {
        return Set.copyOf(plain.queryForList("select distinct application_id from reconciliation_incident where state <> 'CLOSED'"
                + " and application_id in (" + EvidenceReader.markers(page.size()) + ")", Long.class, page.toArray()));
    }

    /**
     * Judges one application on the evidence its page read ({@code read}, null when the application is gone) and acts on
     * what the rules find.
     */
    private void check(long runId, long applicationId, Evidence read, boolean frozen, Map<String, Tally> tallies) {
        // changed a moment ago: an action may still be between its two commits; a later run looks again
        if (read == null || read.updatedAt().isAfter(clock.instant().minus(settings.settle()))) {
            return;
        }
        Evidence evidence = catalog.attach(read);
        boolean needsPeople = rules.stream().map(rule -> rule.check(evidence)).flatMap(Optional::stream)
                .anyMatch(finding -> finding.classification() == Classification.INCIDENT);
        Evidence current = evidence;
        for (ReconciliationRule rule : rules) {
            // judged on the evidence as the repairs before it in this pass left it
            Optional<Finding> found = rule.check(current);
            if (found.isEmpty()) {
                continue;
            }
            Finding finding = found.get();
            Tally tally = tallies.computeIfAbsent(finding.ruleId(), id -> new Tally());
            tally.differences++;
            signals.differenceFound(finding.ruleId());
            log.warn("reconciliation: application {} {} ({}): {}", applicationId, finding.ruleId(), finding.classification(),
                    finding.difference());
            if (finding.classification() == Classification.INCIDENT) {
                if (incidents.open(rule, current, runId, SYSTEM_ACTOR).isPresent()) {
                    tally.incidents++;
                }
            } else if (!frozen && !needsPeople && SafeRepairs.RULES.contains(finding.ruleId())
                    && repairs.repair(finding, current, runId, SYSTEM_ACTOR) == SafeRepairs.Outcome.APPLIED) {
                tally.repaired++;
                signals.repaired(finding.ruleId());
                current = reader.read(plain, applicationId).orElseThrow().withCatalog(evidence.publication().catalog());
            }
        }
    }

    private long watermark() {
        List<Long> rows = plain.queryForList("select last_application_id from reconciliation_watermark where scan = ?", Long.class,
                Kind.INCREMENTAL.name());
        return rows.isEmpty() ? 0 : rows.get(0);
    }

    private void saveWatermark(long last) {
        plain.update(dialect.saveWatermarkSql(), Kind.INCREMENTAL.name(), last, Timestamp.from(clock.instant()));
    }

    private void finish(long runId, String state, long from, Long last, int scanned, Map<String, Tally> tallies, String error) {
        tallies.forEach((rule, tally) -> plain.update("""
                insert into reconciliation_run_rule (run_id, rule_id, differences, repaired, incidents) values (?, ?, ?, ?, ?)
                """, runId, rule, tally.differences, tally.repaired, tally.incidents));
        plain.update("""
                update reconciliation_run set state = ?, finished_at = ?, from_application_id = ?, to_application_id = ?,
                       applications_scanned = ?, error = ? where id = ?
                """, state, Timestamp.from(clock.instant()), from, last, scanned, error, runId);
    }
}
