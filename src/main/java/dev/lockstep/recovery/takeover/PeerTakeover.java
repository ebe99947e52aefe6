package dev.lockstep.recovery.takeover;

import dev.lockstep.platform.DatabaseVendor;
import dev.lockstep.platform.audit.AuditTrail;
import dev.lockstep.recovery.BranchStore;
import dev.lockstep.recovery.PreparedBranch;
import dev.lockstep.transactions.xa.DecodedXid;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Finishes the transactions of a node that died for good, from its coordinator log in the business database. When a
 * transaction-manager name's lease has run out and the name still has prepared branches or pending log records, a live
 * node takes the name under a new lease epoch (compare-and-set on the epoch it saw, so one node wins) and then, by the
 * log as it stands after the take: commits every prepared branch whose transaction has a COMMITTING record, rolls back
 * those with an ABORTING record or none (presumed abort), and leaves a heuristic record's branches to the DBA console.
 * Safe because the new epoch fences the old holder: a decision it tries to log now is refused by the database, so no
 * COMMITTING record can appear after the take, and a paused holder that wakes up stops ({@code FencedNode}).
 *
 * <p>The take and its audit entry commit together; each branch's end is audited as intended before and as its outcome
 * after (ending a prepared branch cannot share a transaction with anything); the transaction's intent journal row gets
 * its outcome and its log record is forgotten, under the taker's epoch, once no branch of it is left. The name is then
 * given back (its lease ends), so the node itself can return under it.
 *
 * <p>Runs on every node whose own log is the database, on a thread of its own ({@link #runEvery}): not through the
 * cluster scheduler, since a takeover must not wait for a job row the dead node may have held, and not on Spring's one
 * scheduling thread, where a takeover that waits for a database would also delay the in-doubt scans health depends
 * on; a node with the file log does not join in. The compare-and-set decides which node does it.
 */
public class PeerTakeover {

    static final String ACTOR = "peer-takeover";
    private static final Logger log = LoggerFactory.getLogger(PeerTakeover.class);

    private final String selfTm;
    private final String location;
    private final String instanceId = UUID.randomUUID().toString();
    private final List<BranchStore> stores;
    private final JdbcTemplate business;
    private final TransactionTemplate transaction;
    private final AuditTrail audit;
    private final Duration lease;
    private final TakeoverStatements statements;
    private final Clock clock;
    private final Counter takeovers;
    private final MeterRegistry meters;

    private final ScheduledExecutorService passes = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "peer-takeover");
        thread.setDaemon(true);
        return thread;
    });

    public PeerTakeover(String selfTm, String location, List<BranchStore> stores, DataSource business, DatabaseVendor vendor,
            AuditTrail audit, Duration lease, Clock clock, MeterRegistry meters) {
        this.selfTm = selfTm;
        this.location = location;
        this.stores = List.copyOf(stores);
        this.business = new JdbcTemplate(business);
        this.transaction = new TransactionTemplate(new DataSourceTransactionManager(business));
        this.audit = audit;
        this.lease = lease;
        this.statements = vendor == DatabaseVendor.ORACLE ? TakeoverStatements.ORACLE : TakeoverStatements.POSTGRESQL;
        this.clock = clock;
        this.meters = meters;
        this.takeovers = Counter.builder("lockstep.recovery.takeovers")
                .description("Transaction-manager names of dead nodes this node took over to finish their transactions")
                .register(meters);
    }

    /**
     * One pass: the names whose lease has run out that still have prepared branches or pending log records are taken
     * over one after the other. Nothing is scanned while no lease has run out.
     */
    public void takeOverExpiredNames() {
        try {
            Map<String, Long> expired = new HashMap<>();
            business.query(statements.expired(), row -> {
                expired.put(row.getString(1), row.getLong(2));
            }, selfTm);
            if (expired.isEmpty()) {
                return;
            }
            Set<String> unfinished = new HashSet<>(preparedBranchesByOwner().keySet());
            business.query("select distinct tm_name from tm_coordinator_log where state <> 'TERMINATED'", row -> {
                unfinished.add(row.getString(1));
            });
            expired.forEach((name, epoch) -> {
                if (unfinished.contains(name)) {
                    takeOver(name, epoch);
                }
            });
        } catch (RuntimeException e) {
            // the next pass tries again; a takeover half done is finished by it (the log and the branches are still there)
            log.warn("peer takeover pass failed: {}", e.toString());
        }
    }

    /** Starts the passes, every {@code interval} after the first one an interval from now. */
    public void runEvery(Duration interval) {
        passes.scheduleWithFixedDelay(this::takeOverExpiredNames, interval.toMillis(), interval.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    /** Stops the passes (a pass under way is interrupted; the next holder of a name it took finishes the name). */
    public void stop() {
        passes.shutdownNow();
    }

    /** Takes {@code name} over and finishes its transactions; false when another node took it first or its holder came back. */
    boolean takeOver(String name, long seenEpoch) {
        OptionalLong epoch = take(name, seenEpoch);
        if (epoch.isEmpty()) {
            return false;
        }
        takeovers.increment();
        try {
            finish(name, epoch.getAsLong());
        } finally {
            business.update(statements.release(), name, epoch.getAsLong());
        }
        return true;
    }

    /** The take and its audit entry in one local transaction; empty when the epoch moved on since it was seen. */
    private OptionalLong take(String name, long seenEpoch) {
        Long taken = transaction.execute(status -> {
            int updated = business.update(statements.take(), location, instanceId, lease.toSeconds(), name, seenEpoch);
            if (updated != 1) {
                return null;
            }
            audit.append(ACTOR, "TM_NAME_TAKEN_OVER", null, name + " taken over by " + selfTm + " under lease epoch "
                    + (seenEpoch + 1) + " (its lease, epoch " + seenEpoch + ", had run out) to finish its transactions"
                    + " from its coordinator log");
            return seenEpoch + 1;
        });
        if (taken == null) {
            return OptionalLong.empty();
        }
        log.warn("took over transaction manager name {} (epoch {}): finishing its transactions from its coordinator log",
                name, taken);
        return OptionalLong.of(taken);
    }

    /** Ends every prepared branch of {@code name} by its log record, then forgets the records nothing is left of. */
    private void finish(String name, long epoch) {
        Map<String, String> records = pendingRecords(name);
        Map<String, List<PreparedBranch>> branches = preparedBranchesByOwner().getOrDefault(name, Map.of());
        Map<String, String> outcomes = new HashMap<>();
        branches.forEach((gtrid, prepared) -> {
            Decision decision = Decision.of(records.get(gtrid));
            if (decision == Decision.LEAVE) {
                log.warn("transaction {} of {} has a {} record: left to the DBA console", gtrid, name, records.get(gtrid));
                return;
            }
            boolean allEnded = true;
            for (PreparedBranch branch : prepared) {
                allEnded &= end(branch, decision, records.get(gtrid));
            }
            if (allEnded) {
                outcomes.put(gtrid, decision.intentStatus);
            }
        });
        records.forEach((gtrid, state) -> {
            if (!branches.containsKey(gtrid) && Decision.of(state) != Decision.LEAVE) {
                outcomes.put(gtrid, Decision.of(state).intentStatus); // its branches had ended before the node died
            }
        });
        outcomes.forEach((gtrid, status) -> forget(name, epoch, gtrid, status));
    }

    /** Commits or rolls back one branch, the intent and the outcome each an audit entry; true when it is ended. */
    private boolean end(PreparedBranch branch, Decision decision, String record) {
        String gtrid = branch.groupKey();
        String target = branch.resource() + " branch " + branch.rawId();
        String kind = decision == Decision.COMMIT ? "TAKEOVER_COMMIT" : "TAKEOVER_ROLLBACK";
        audit.append(ACTOR, kind + "_INTENDED", gtrid, target + ": " + (record == null
                ? "no record in the coordinator log: no commit was decided (presumed abort)"
                : "the coordinator log holds " + record));
        String outcome;
        BranchStore store = stores.stream().filter(s -> s.resource().equals(branch.resource())).findFirst().orElseThrow();
        try {
            boolean done = decision == Decision.COMMIT ? store.commit(branch.rawId()) : store.rollback(branch.rawId());
            outcome = !done ? "ALREADY_GONE" : decision == Decision.COMMIT ? "COMMITTED" : "ROLLED_BACK";
        } catch (RuntimeException e) {
            outcome = "FAILED";
            log.warn("takeover could not end {} of {}: {}", target, gtrid, e.getMessage());
        }
        audit.append(ACTOR, kind + "_" + outcome, gtrid, target + ": " + outcome);
        meters.counter("lockstep.recovery.takeover.branches", "resource", branch.resource(), "action", decision.name(),
                "outcome", outcome).increment();
        return !outcome.equals("FAILED");
    }

    /**
     * The intent journal row gets the transaction's outcome and the log record goes, under the taker's epoch: a node
     * that took the name after this one changes nothing here.
     */
    private void forget(String name, long epoch, String gtrid, String intentStatus) {
        transaction.executeWithoutResult(status -> {
            business.update("update recovery_intent set status = ?, completed_at = ? where tm_name = ? and gtrid = ?"
                    + " and status = 'PREPARING'", intentStatus, Timestamp.from(clock.instant()), name, gtrid);
            business.update("delete from tm_coordinator_log where tm_name = ? and coordinator_id = ? and exists"
                    + " (select 1 from recovery_node where tm_name = ? and epoch = ?)", name, gtrid, name, epoch);
        });
    }

    /** The state of each of {@code name}'s transactions whose record is not TERMINATED. */
    private Map<String, String> pendingRecords(String name) {
        Map<String, String> records = new HashMap<>();
        business.query("select coordinator_id, state from tm_coordinator_log where tm_name = ? and state <> 'TERMINATED'",
                row -> {
                    records.put(row.getString(1), row.getString(2));
                }, name);
        return records;
    }

    /** The prepared branches on both databases of Atomikos transactions, by the name that began them and gtrid. */
    private Map<String, Map<String, List<PreparedBranch>>> preparedBranchesByOwner() {
        Map<String, Map<String, List<PreparedBranch>>> owners = new HashMap<>();
        for (BranchStore store : stores) {
            for (PreparedBranch branch : store.scan()) {
                branch.xid().filter(DecodedXid::isAtomikos).flatMap(DecodedXid::ownerTm).ifPresent(owner -> owners
                        .computeIfAbsent(owner, name -> new LinkedHashMap<>())
                        .computeIfAbsent(branch.groupKey(), gtrid -> new ArrayList<>()).add(branch));
            }
        }
        return owners;
    }

    /** What the log record of a transaction says to do with its prepared branches. */
    enum Decision {
        COMMIT("COMMITTED"), ROLLBACK("ROLLED_BACK"), LEAVE(null);

        final String intentStatus;

        Decision(String intentStatus) {
            this.intentStatus = intentStatus;
        }

        /** COMMITTING commits; ABORTING or no record rolls back; a heuristic or any other record is the DBA's. */
        static Decision of(String record) {
            if (record == null || record.equals("ABORTING")) {
                return ROLLBACK;
            }
            return record.equals("COMMITTING") ? COMMIT : LEAVE;
        }
    }

    /** The lease statements of a takeover by vendor: expiry judged by the database's clock, as the lease itself does. */
    private enum TakeoverStatements {
        POSTGRESQL {
            @Override
            String expired() {
                return "select tm_name, epoch from recovery_node where tm_name <> ? and log_store = 'database'"
                        + " and lease_expires_at < now()";
            }

            @Override
            String take() {
                return "update recovery_node set epoch = epoch + 1, holder_location = ?, instance_id = ?,"
                        + " lease_expires_at = now() + make_interval(secs => ?)"
                        + " where tm_name = ? and epoch = ? and lease_expires_at < now()";
            }

            @Override
            String release() {
                return "update recovery_node set lease_expires_at = now() where tm_name = ? and epoch = ?";
            }
        },

        ORACLE {
            @Override
            String expired() {
                return "select tm_name, epoch from recovery_node where tm_name <> ? and log_store = 'database'"
                        + " and lease_expires_at < systimestamp";
            }

            @Override
            String take() {
                return "update recovery_node set epoch = epoch + 1, holder_location = ?, instance_id = ?,"
                        + " lease_expires_at = systimestamp + numtodsinterval(?, 'SECOND')"
                        + " where tm_name = ? and epoch = ? and lease_expires_at < systimestamp";
            }

            @Override
            String release() {
                return "update recovery_node set lease_expires_at = systimestamp where tm_name = ? and epoch = ?";
            }
        };

        /**
         * Argument: this node's name. Names other than it whose lease has run out, with their epoch: only those whose
         * holder logged its decisions in the database (a file log is out of reach, and without it a COMMITTING
         * transaction would look undecided).
         */
        abstract String expired();

        /** Arguments: location, instance, lease seconds, name, the epoch seen. One row when taken. */
        abstract String take();

        /** Arguments: name, epoch. */
        abstract String release();
    }
}
