package dev.lockstep.recovery;

import dev.lockstep.platform.audit.AuditTrail;
import java.sql.Timestamp;
import java.time.Clock;
import java.util.List;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The writes of a resolution's execution, each state change committed together with its audit entry
 * in one local transaction of the business database. COMMIT/ROLLBACK PREPARED cannot run inside a
 * transaction, so each branch is bracketed: {@link #intend} commits "about to COMMIT branch x" before
 * the statement, {@link #ended} commits what the database answered after it. A node that stops in
 * between leaves the resolution EXECUTING with an attempt row that has no outcome: exactly what
 * happened, for the DBA and for the next {@code execute}.
 */
public class ResolutionJournal {

    private final JdbcTemplate business;
    private final TransactionTemplate transaction;
    private final AuditTrail audit;
    private final Clock clock;

    ResolutionJournal(DataSource business, AuditTrail audit, Clock clock) {
        this.business = new JdbcTemplate(business);
        this.transaction = new TransactionTemplate(new DataSourceTransactionManager(business));
        this.audit = audit;
        this.clock = clock;
    }

    /** A branch of a resolution's global transaction: the resource and the database's own id of it. */
    public record BranchRef(String resource, String rawId) {
    }

    /** Runs {@code change} and the audit entries it appends as one local transaction. */
    public <T> T inTransaction(Supplier<T> change) {
        return transaction.execute(status -> change.get());
    }

    /**
     * Claims the next attempt (CAS on status and attempt count, so two DBAs cannot both run it) and
     * marks the branches a stopped earlier attempt left without an outcome as INTERRUPTED.
     *
     * @return the new attempt number, or 0 when the resolution changed meanwhile
     */
    public int claim(String dba, long id, String gtrid, String status, int attempts, String plan) {
        return inTransaction(() -> {
            Timestamp now = Timestamp.from(clock.instant());
            int claimed = business.update("""
                    update recovery_resolution set status = 'EXECUTING', attempts = attempts + 1, executed_by = ?,
                        executed_at = ? where id = ? and status = ? and attempts = ?
                    """, dba, now, id, status, attempts);
            if (claimed != 1) {
                return 0;
            }
            int interrupted = business.update("""
                    update recovery_branch_outcome set outcome = 'INTERRUPTED', ended_at = ?, detail = ?
                    where resolution_id = ? and outcome is null
                    """, now, "the execution stopped before its outcome was recorded; attempt " + (attempts + 1)
                    + " checks the branch again", id);
            audit.append(dba, "EXECUTION_STARTED", gtrid, "resolution #" + id + " attempt " + (attempts + 1) + ": " + plan
                    + (interrupted > 0 ? " (" + interrupted + " branch(es) of an interrupted attempt without a recorded outcome)" : ""));
            return attempts + 1;
        });
    }

    /** Committed before the statement runs: the row says what was about to happen. */
    public long intend(String dba, long id, int attempt, String gtrid, BranchRef branch, ResolutionService.Action action) {
        return inTransaction(() -> {
            GeneratedKeyHolder key = new GeneratedKeyHolder();
            business.update(connection -> {
                var insert = connection.prepareStatement("""
                        insert into recovery_branch_outcome (resolution_id, attempt, gtrid, resource, raw_id, intended, started_at)
                        values (?, ?, ?, ?, ?, ?, ?)
                        """, new String[] {"id"});
                insert.setLong(1, id);
                insert.setInt(2, attempt);
                insert.setString(3, gtrid);
                insert.setString(4, branch.resource());
                insert.setString(5, branch.rawId());
                insert.setString(6, action.name());
                insert.setTimestamp(7, Timestamp.from(clock.instant()));
                return insert;
            }, key);
            audit.append(dba, "BRANCH_INTENDED", gtrid, "resolution #" + id + " attempt " + attempt + ": " + action
                    + " PREPARED branch " + branch.rawId() + " on " + branch.resource() + " starts now");
            return key.getKey().longValue();
        });
    }

    /** Committed after the statement: what the database answered. */
    public void ended(String dba, long id, long row, String gtrid, BranchRef branch, String outcome, String detail) {
        inTransaction(() -> {
            business.update("update recovery_branch_outcome set outcome = ?, detail = ?, ended_at = ? where id = ?",
                    outcome, detail, Timestamp.from(clock.instant()), row);
            audit.append(dba, "BRANCH_ENDED", gtrid, "resolution #" + id + ": branch " + branch.rawId() + " on "
                    + branch.resource() + " " + outcome + (detail == null ? "" : " (" + detail + ")"));
            return null;
        });
    }

    public void finished(String dba, long id, String gtrid, boolean failed, String summary) {
        inTransaction(() -> {
            business.update("update recovery_resolution set status = ?, outcome = ? where id = ?", failed ? "FAILED" : "EXECUTED",
                    summary, id);
            audit.append(dba, failed ? "EXECUTION_FAILED" : "EXECUTED", gtrid, "resolution #" + id + ": " + summary);
            return null;
        });
    }

    /**
     * The branches an earlier attempt ended (committed, rolled back or found gone), as "resource rawId: OUTCOME (attempt
     * N)": what a node that stopped before marking the resolution EXECUTED had already done.
     */
    public List<String> endedEarlier(long id) {
        return business.queryForList("""
                select resource || ' ' || raw_id || ': ' || outcome || ' (attempt ' || attempt || ')'
                from recovery_branch_outcome where resolution_id = ? and outcome in ('COMMITTED', 'ROLLED_BACK', 'ALREADY_GONE')
                order by id
                """, String.class, id);
    }

    /** The branches whose last attempt has no outcome or failed: what a re-run must look at again. */
    public List<BranchRef> unfinished(long id) {
        return business.query("""
                select resource, raw_id from recovery_branch_outcome o
                where resolution_id = ? and (outcome is null or outcome = 'FAILED')
                  and attempt = (select max(attempt) from recovery_branch_outcome where resolution_id = o.resolution_id)
                order by id
                """, (row, n) -> new BranchRef(row.getString(1), row.getString(2)), id);
    }
}
