package dev.lockstep.recovery;

import dev.lockstep.platform.audit.AuditTrail;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.springframework.http.HttpStatus;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.GeneratedKeyHolder;

/**
 * Four-eyes resolution of in-doubt transactions: a DBA proposes COMMIT or ROLLBACK with a reason,
 * a different DBA approves, then it is executed with COMMIT PREPARED / ROLLBACK PREPARED. The
 * safety checks run at every step against a fresh scan, because Atomikos may finish the transaction
 * in between. Every step, refusals of execution included, goes to the audit trail.
 */
public class ResolutionService {

    private final InDoubtMonitor monitor;
    private final AuditTrail audit;
    private final ResolutionJournal journal;
    private final JdbcTemplate business;
    private final RecoveryProperties properties;
    private final Clock clock;
    private final MeterRegistry meters;

    ResolutionService(InDoubtMonitor monitor, AuditTrail audit, ResolutionJournal journal, JdbcTemplate business,
            RecoveryProperties properties, Clock clock, MeterRegistry meters) {
        this.monitor = monitor;
        this.audit = audit;
        this.journal = journal;
        this.business = business;
        this.properties = properties;
        this.clock = clock;
        this.meters = meters;
    }

    public enum Action { COMMIT, ROLLBACK }

    /**
     * @param resource with {@code rawId}: one branch; both null: every branch of the global transaction
     */
    public record Proposal(String gtrid, String resource, String rawId, Action action, String reason, boolean override,
            String justification) {
    }

    /**
     * @param status PROPOSED, APPROVED, EXECUTING (statements started; {@code branches} says how far), EXECUTED, FAILED
     * @param branches every attempt to end a branch, oldest first; an {@code outcome} of null means the
     *        statement was about to run and nothing after it was recorded
     */
    public record Resolution(long id, String gtrid, String resource, String rawId, String action, String reason,
            boolean override, String justification, String status, String proposedBy, String approvedBy,
            String executedBy, String outcome, int attempts, List<BranchAttempt> branches) {
    }

    public record BranchAttempt(int attempt, String resource, String rawId, String intended, String outcome, String detail,
            Instant startedAt, Instant endedAt) {
    }

    public Resolution propose(String dba, Proposal proposal) {
        if (proposal.action() == null) {
            throw new RecoveryException(HttpStatus.BAD_REQUEST, "RECOVERY_ACTION_REQUIRED", "action must be COMMIT or ROLLBACK");
        }
        if (blank(proposal.reason())) {
            throw new RecoveryException(HttpStatus.BAD_REQUEST, "RECOVERY_REASON_REQUIRED",
                    "a proposal needs a reason the second DBA can check");
        }
        if ((proposal.resource() == null) != (proposal.rawId() == null)) {
            throw new RecoveryException(HttpStatus.BAD_REQUEST, "RECOVERY_BRANCH_INCOMPLETE",
                    "name a branch with both resource and rawId, or neither for the whole global transaction");
        }
        InDoubtTransaction tx = checkSafe(proposal.gtrid(), proposal.resource(), proposal.rawId(), proposal.action(),
                proposal.override(), proposal.justification(), null);
        long id = journal.inTransaction(() -> {
            GeneratedKeyHolder key = new GeneratedKeyHolder();
            business.update(connection -> {
                var insert = connection.prepareStatement("""
                        insert into recovery_resolution (gtrid, resource, raw_id, action, reason, override, justification,
                            status, proposed_by, proposed_at) values (?, ?, ?, ?, ?, ?, ?, 'PROPOSED', ?, ?)
                        """, new String[] {"id"});
                insert.setString(1, tx.gtrid());
                insert.setString(2, proposal.resource());
                insert.setString(3, proposal.rawId());
                insert.setString(4, proposal.action().name());
                insert.setString(5, proposal.reason().trim());
                insert.setBoolean(6, proposal.override());
                insert.setString(7, proposal.override() ? proposal.justification().trim() : null);
                insert.setString(8, dba);
                insert.setTimestamp(9, Timestamp.from(clock.instant()));
                return insert;
            }, key);
            long created = key.getKey().longValue();
            audit.append(dba, "PROPOSED", tx.gtrid(), "resolution #" + created + " " + proposal.action() + " " + target(proposal.resource(),
                    proposal.rawId()) + " class=" + tx.classification() + " recommendation=" + tx.recommendation() + " reason="
                    + proposal.reason().trim() + (proposal.override() ? " override justification=" + proposal.justification().trim() : ""));
            return created;
        });
        return get(id);
    }

    public Resolution approve(String dba, long id) {
        Resolution resolution = get(id);
        if (!"PROPOSED".equals(resolution.status())) {
            throw new RecoveryException(HttpStatus.CONFLICT, "RECOVERY_NOT_PROPOSED",
                    "resolution #" + id + " is " + resolution.status() + ", only a PROPOSED one can be approved");
        }
        if (resolution.proposedBy().equals(dba)) {
            throw new RecoveryException(HttpStatus.FORBIDDEN, "RECOVERY_SAME_APPROVER",
                    "four eyes: " + dba + " proposed resolution #" + id + " and cannot approve it too");
        }
        checkSafe(resolution.gtrid(), resolution.resource(), resolution.rawId(), Action.valueOf(resolution.action()),
                resolution.override(), resolution.justification(), id);
        journal.inTransaction(() -> {
            int updated = business.update("""
                    update recovery_resolution set status = 'APPROVED', approved_by = ?, approved_at = ?
                    where id = ? and status = 'PROPOSED'
                    """, dba, Timestamp.from(clock.instant()), id);
            if (updated != 1) {
                throw new RecoveryException(HttpStatus.CONFLICT, "RECOVERY_NOT_PROPOSED", "resolution #" + id + " changed meanwhile");
            }
            return audit.append(dba, "APPROVED", resolution.gtrid(), "resolution #" + id + " " + resolution.action() + " "
                    + target(resolution.resource(), resolution.rawId()) + " proposed by " + resolution.proposedBy());
        });
        return get(id);
    }

    /**
     * Runs an APPROVED resolution, or re-runs one that is EXECUTING (its node stopped mid-way) or FAILED.
     * A re-run ends the branches still prepared and those the last attempt left without an outcome;
     * a branch the database no longer knows is recorded ALREADY_GONE. A re-run that finds every branch ended by an
     * earlier attempt (its node stopped before recording the end of the resolution) only records that end.
     */
    public Resolution execute(String dba, long id) {
        Resolution resolution = get(id);
        boolean rerun = "EXECUTING".equals(resolution.status()) || "FAILED".equals(resolution.status());
        if (!"APPROVED".equals(resolution.status()) && !rerun) {
            throw new RecoveryException(HttpStatus.CONFLICT, "RECOVERY_NOT_APPROVED", "resolution #" + id + " is "
                    + resolution.status() + ": only an APPROVED one can be executed, or an EXECUTING or FAILED one re-run");
        }
        Action action = Action.valueOf(resolution.action());
        List<ResolutionJournal.BranchRef> leftOver = rerun ? journal.unfinished(id) : List.of();
        Optional<InDoubtTransaction> found = monitor.find(resolution.gtrid());
        // a node that stopped after ending every branch, before marking the resolution EXECUTED: nothing left to check or do
        List<String> endedEarlier = rerun && leftOver.isEmpty() && found.isEmpty() ? journal.endedEarlier(id) : List.of();
        Set<ResolutionJournal.BranchRef> targets = new LinkedHashSet<>();
        try {
            if (found.isPresent() || leftOver.isEmpty() && endedEarlier.isEmpty()) {
                checkSafe(found, resolution.gtrid(), leftOver.isEmpty() ? resolution.resource() : null, resolution.rawId(),
                        action, resolution.override(), resolution.justification(), id);
            }
        } catch (RecoveryException refused) {
            audit.append(dba, "EXECUTION_REFUSED", resolution.gtrid(), "resolution #" + id + " " + refused.code() + ": "
                    + refused.getMessage());
            throw refused;
        }
        found.ifPresent(tx -> tx.branches().stream()
                .filter(branch -> resolution.resource() == null
                        || (branch.resource().equals(resolution.resource()) && branch.rawId().equals(resolution.rawId())))
                .forEach(branch -> targets.add(new ResolutionJournal.BranchRef(branch.resource(), branch.rawId()))));
        targets.addAll(leftOver);
        String plan = action + " " + targets.stream().map(branch -> branch.rawId() + " on " + branch.resource()).toList();
        int attempt = journal.claim(dba, id, resolution.gtrid(), resolution.status(), resolution.attempts(), plan);
        if (attempt == 0) {
            throw new RecoveryException(HttpStatus.CONFLICT, "RECOVERY_NOT_APPROVED", "resolution #" + id + " changed meanwhile");
        }
        List<String> results = new ArrayList<>(endedEarlier);
        boolean failed = false;
        for (ResolutionJournal.BranchRef branch : targets) {
            long row = journal.intend(dba, id, attempt, resolution.gtrid(), branch, action);
            String outcome;
            String detail = null;
            try {
                BranchStore store = monitor.store(branch.resource()).orElseThrow();
                boolean done = action == Action.COMMIT ? store.commit(branch.rawId()) : store.rollback(branch.rawId());
                outcome = !done ? "ALREADY_GONE" : action == Action.COMMIT ? "COMMITTED" : "ROLLED_BACK";
            } catch (RuntimeException e) {
                failed = true;
                outcome = "FAILED";
                detail = e.getMessage();
            }
            journal.ended(dba, id, row, resolution.gtrid(), branch, outcome, detail);
            results.add(branch.resource() + " " + branch.rawId() + ": " + outcome + (detail == null ? "" : " " + detail));
            meters.counter("lockstep.recovery.resolutions", "resource", branch.resource(), "action", action.name(),
                    "outcome", outcome).increment();
        }
        journal.finished(dba, id, resolution.gtrid(), failed, action + ": " + String.join("; ", results));
        return get(id);
    }

    public Resolution get(long id) {
        List<BranchAttempt> branches = business.query("""
                select attempt, resource, raw_id, intended, outcome, detail, started_at, ended_at from recovery_branch_outcome
                where resolution_id = ? order by id
                """, (row, n) -> new BranchAttempt(row.getInt(1), row.getString(2), row.getString(3), row.getString(4),
                row.getString(5), row.getString(6), instant(row.getTimestamp(7)), instant(row.getTimestamp(8))), id);
        return business.query("select * from recovery_resolution where id = ?", (row, n) -> new Resolution(row.getLong("id"),
                row.getString("gtrid"), row.getString("resource"), row.getString("raw_id"), row.getString("action"),
                row.getString("reason"), row.getBoolean("override"), row.getString("justification"), row.getString("status"),
                row.getString("proposed_by"), row.getString("approved_by"), row.getString("executed_by"),
                row.getString("outcome"), row.getInt("attempts"), branches), id).stream().findFirst()
                .orElseThrow(() -> new RecoveryException(HttpStatus.NOT_FOUND, "RECOVERY_NOT_FOUND", "no resolution #" + id));
    }

    private static Instant instant(Timestamp timestamp) {
        return timestamp == null ? null : timestamp.toInstant();
    }

    public List<Resolution> recent(int limit) {
        return business.query("select id from recovery_resolution order by id desc fetch first ? rows only", (row, n) -> row.getLong(1), limit)
                .stream().map(this::get).toList();
    }

    /**
     * Refuses what must not be touched: a transaction that is gone or owned by a live node inside
     * its window, and a split outcome (this action differs from how a sibling branch ended or is
     * about to end) unless overridden with a justification.
     */
    private InDoubtTransaction checkSafe(String gtrid, String resource, String rawId, Action action, boolean override,
            String justification, Long self) {
        return checkSafe(monitor.find(gtrid), gtrid, resource, rawId, action, override, justification, self);
    }

    private InDoubtTransaction checkSafe(Optional<InDoubtTransaction> found, String gtrid, String resource, String rawId,
            Action action, boolean override, String justification, Long self) {
        InDoubtTransaction tx = found.orElseThrow(() -> new RecoveryException(HttpStatus.NOT_FOUND,
                "RECOVERY_NOT_FOUND", "no prepared branch of global transaction " + gtrid + " is left"));
        if (resource != null && tx.branches().stream()
                .noneMatch(branch -> branch.resource().equals(resource) && branch.rawId().equals(rawId))) {
            throw new RecoveryException(HttpStatus.NOT_FOUND, "RECOVERY_NOT_FOUND",
                    "global transaction " + gtrid + " has no prepared branch " + rawId + " on " + resource);
        }
        if (tx.protectedByLiveOwner(properties.ownerWindow())) {
            throw new RecoveryException(HttpStatus.CONFLICT, "RECOVERY_OWNER_ALIVE", "owner " + tx.ownerTm()
                    + " is alive and the transaction is " + tx.age().toSeconds() + "s old, inside the owner window of "
                    + properties.ownerWindow().toSeconds() + "s: its transaction manager will finish it");
        }
        String conflict = conflictingOutcome(gtrid, resource, action, self);
        if (conflict != null) {
            if (!override) {
                throw new RecoveryException(HttpStatus.CONFLICT, "RECOVERY_MIXED_OUTCOME", action + " would split global"
                        + " transaction " + gtrid + ": " + conflict + ". Resubmit with override=true and a justification"
                        + " if that is really intended.");
            }
            if (blank(justification)) {
                throw new RecoveryException(HttpStatus.BAD_REQUEST, "RECOVERY_JUSTIFICATION_REQUIRED",
                        "an override of the mixed-outcome rule needs a justification");
            }
        }
        return tx;
    }

    private String conflictingOutcome(String gtrid, String resource, Action action, Long self) {
        String opposite = action == Action.COMMIT ? "ROLLED_BACK" : "COMMITTED";
        List<String> ended = business.queryForList("""
                select resource || ' was ' || outcome from recovery_branch_outcome
                where gtrid = ? and outcome = ? and (cast(? as varchar) is null or resource <> ?)
                """, String.class, gtrid, opposite, resource, resource);
        if (!ended.isEmpty()) {
            return String.join(", ", ended);
        }
        Map<String, Object> open = new HashMap<>();
        business.query("""
                select id, coalesce(resource, 'all branches') from recovery_resolution
                where gtrid = ? and status in ('PROPOSED', 'APPROVED', 'EXECUTING') and action <> ? and id <> coalesce(?, -1)
                """, row -> {
            open.put("#" + row.getLong(1), row.getString(2));
        }, gtrid, action.name(), self);
        return open.isEmpty() ? null : "open resolution(s) " + open + " would do the opposite";
    }

    private static String target(String resource, String rawId) {
        return resource == null ? "all branches" : "branch " + rawId + " on " + resource;
    }

    private static boolean blank(String text) {
        return text == null || text.isBlank();
    }
}
