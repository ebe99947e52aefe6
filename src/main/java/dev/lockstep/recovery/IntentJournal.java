package dev.lockstep.recovery;

import com.atomikos.icatch.CompositeTransaction;
import com.atomikos.icatch.config.Configuration;
import com.atomikos.icatch.jta.UserTransactionManager;
import dev.lockstep.transactions.usecase.IntentJournaling;
import jakarta.transaction.RollbackException;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.SystemException;
import jakarta.transaction.Transaction;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * What business operation a global transaction carries, kept where a DBA can read it while the
 * transaction's branches are prepared (their own rows are invisible to every other session then).
 *
 * <p><b>Contract for use cases:</b> every use case that commits through XA (submit, complete,
 * withdraw, terminate, claim, ...) calls {@link #record} exactly once, inside its active JTA
 * transaction, after it knows its business key. Nothing is written at that moment: a JTA
 * {@link Synchronization} writes the journal row in {@code beforeCompletion} — just before the
 * two-phase commit starts — on a plain autocommit connection outside the XA transaction, so the
 * row is committed and visible before any branch is prepared; {@code afterCompletion} then marks
 * it COMMITTED or ROLLED_BACK. A row left in PREPARING means the node stopped during two-phase
 * commit. A heuristic outcome makes it HEURISTIC ({@link HeuristicEventRecorder}): JTA's
 * afterCompletion reports only the decision (commit), not that a participant ended otherwise. A failure to write the row fails the use case: an in-doubt transaction nobody can
 * explain is what this journal exists to prevent.
 * <p>On PostgreSQL the outcome mark commits with {@code synchronous_commit = off}: it is written
 * after the transaction has ended, nothing waits on it, and losing it (the business database itself
 * crashing within a fraction of a second) leaves the row in PREPARING for a transaction with no
 * branch left, which no in-doubt view starts from. The PREPARING row itself stays a durable commit:
 * it must exist before any branch is prepared. One fsync fewer per XA use case.
 */
public class IntentJournal implements IntentJournaling {

    private static final Logger log = LoggerFactory.getLogger(IntentJournal.class);

    private final UserTransactionManager transactionManager;
    private final JdbcTemplate business;
    private final HeuristicEventRecorder heuristics;
    private final String selfTm;
    private final Clock clock;
    private final boolean asynchronousOutcome;

    IntentJournal(UserTransactionManager transactionManager, JdbcTemplate business, HeuristicEventRecorder heuristics,
            String selfTm, Clock clock, boolean asynchronousOutcome) {
        this.transactionManager = transactionManager;
        this.business = business;
        this.heuristics = heuristics;
        this.selfTm = selfTm;
        this.clock = clock;
        this.asynchronousOutcome = asynchronousOutcome;
    }

    /**
     * Registers the intent of the current JTA transaction.
     *
     * @param useCase e.g. submit, complete, withdraw, terminate, claim
     * @param businessKey e.g. the application id
     * @param requestId the client's idempotency key, if any
     * @param userId who asked for it
     * @throws IllegalStateException when no JTA transaction is active
     */
    @Override
    public String record(String useCase, String businessKey, String requestId, String userId) {
        try {
            Transaction transaction = transactionManager.getTransaction();
            CompositeTransaction current = Configuration.getCompositeTransactionManager().getCompositeTransaction();
            if (transaction == null || current == null || transaction.getStatus() != Status.STATUS_ACTIVE) {
                throw new IllegalStateException("IntentJournal.record must be called inside an active JTA transaction");
            }
            transaction.registerSynchronization(new Entry(current.getTid(), useCase, businessKey, requestId, userId));
            return current.getTid();
        } catch (SystemException | RollbackException e) {
            throw new IllegalStateException("cannot register the intent of " + useCase + " " + businessKey, e);
        }
    }

    /**
     * A pooled autocommit connection taken straight from the pool and returned as soon as the statement
     * ran. Through JdbcTemplate it would be bound to the Spring transaction that is committing and held
     * until its two-phase commit ends, so no more use cases than the pool has connections could commit at
     * once (the recovery-time benchmark's 100 concurrent commits stalled at 4).
     */
    private Connection journalConnection() throws SQLException {
        return Objects.requireNonNull(business.getDataSource(), "journal DataSource").getConnection();
    }

    /** Recorded like the heuristic events Atomikos publishes: an event row, the intent HEURISTIC, the alert line. */
    @Override
    public void markHeuristic(String gtrid, String outcome) {
        try {
            heuristics.commitEndedHeuristically(gtrid, outcome);
        } catch (RuntimeException e) {
            log.error("LOCKSTEP-INDOUBT-ALERT class=HEURISTIC gtrid={} outcome={}: could not journal it: {}", gtrid, outcome,
                    e.getMessage());
        }
    }

    @Override
    public boolean endedHeuristically(String requestId) {
        return Boolean.TRUE.equals(business.queryForObject(
                "select count(*) > 0 from recovery_intent where request_id = ? and status = 'HEURISTIC'", Boolean.class, requestId));
    }

    /** The journal rows of one global transaction, oldest first. */
    public List<Map<String, Object>> forGtrid(String gtrid) {
        return business.queryForList("""
                select use_case, business_key, request_id, user_id, tm_name, status, recorded_at, completed_at
                from recovery_intent where gtrid = ? order by id
                """, gtrid);
    }

    private final class Entry implements Synchronization {

        private final String gtrid;
        private final String useCase;
        private final String businessKey;
        private final String requestId;
        private final String userId;
        private Long id;

        Entry(String gtrid, String useCase, String businessKey, String requestId, String userId) {
            this.gtrid = gtrid;
            this.useCase = useCase;
            this.businessKey = businessKey;
            this.requestId = requestId;
            this.userId = userId;
        }

        @Override
        public void beforeCompletion() {
            try (Connection connection = journalConnection(); PreparedStatement insert = connection.prepareStatement("""
                    insert into recovery_intent (gtrid, tm_name, use_case, business_key, request_id, user_id, status, recorded_at)
                    values (?, ?, ?, ?, ?, ?, 'PREPARING', ?)
                    """, new String[] {"id"})) {
                insert.setString(1, gtrid);
                insert.setString(2, selfTm);
                insert.setString(3, useCase);
                insert.setString(4, businessKey);
                insert.setString(5, requestId);
                insert.setString(6, userId);
                insert.setTimestamp(7, Timestamp.from(clock.instant()));
                insert.executeUpdate();
                try (ResultSet keys = insert.getGeneratedKeys()) {
                    keys.next();
                    id = keys.getLong(1);
                }
            } catch (SQLException e) {
                throw new IllegalStateException("cannot journal the intent of " + useCase + " " + businessKey, e);
            }
        }

        @Override
        public void afterCompletion(int status) {
            if (id == null) {
                return; // rolled back before beforeCompletion ran: nothing was journaled
            }
            String outcome = status == Status.STATUS_COMMITTED ? "COMMITTED" : "ROLLED_BACK";
            try (Connection connection = journalConnection()) {
                markOutcome(connection, outcome, Timestamp.from(clock.instant()));
            } catch (SQLException | RuntimeException e) {
                // the transaction is already over; the row simply stays PREPARING
                log.warn("could not mark intent {} of gtrid {} as {}: {}", id, gtrid, outcome, e.getMessage());
            }
        }

        /**
         * One round trip. On PostgreSQL the mark is its own transaction block sent as one batch, so that it alone
         * commits asynchronously; if any statement of it fails the block is left aborted, and the rollback gives
         * the pool a clean connection back.
         */
        private void markOutcome(Connection connection, String outcome, Timestamp completedAt) throws SQLException {
            // only from PREPARING: a HEURISTIC mark the event recorder wrote first stays
            String update = "update recovery_intent set status = ?, completed_at = ? where id = ? and status = 'PREPARING'";
            try (PreparedStatement mark = connection.prepareStatement(asynchronousOutcome
                    ? "begin; set local synchronous_commit = off; " + update + "; commit" : update)) {
                mark.setString(1, outcome);
                mark.setTimestamp(2, completedAt);
                mark.setLong(3, id);
                mark.execute();
            } catch (SQLException | RuntimeException e) {
                if (asynchronousOutcome) {
                    try (Statement rollback = connection.createStatement()) {
                        rollback.execute("rollback");
                    }
                }
                throw e;
            }
        }
    }
}
