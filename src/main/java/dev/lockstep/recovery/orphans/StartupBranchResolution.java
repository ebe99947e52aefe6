package dev.lockstep.recovery.orphans;

import dev.lockstep.platform.ConditionalOnXaMode;
import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.platform.DatabaseSettings;
import dev.lockstep.platform.LockstepProperties;
import dev.lockstep.platform.audit.AuditTrail;
import dev.lockstep.recovery.CoordinatorLog;
import dev.lockstep.transactions.xa.AfterTransactionServiceStart;
import dev.lockstep.transactions.xa.BeforeRecovery;
import dev.lockstep.transactions.xa.DecodedXid;
import dev.lockstep.transactions.xa.XaDataSourceFactory;
import dev.lockstep.transactions.xa.log.GroupCommitLogFactory;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import javax.sql.XAConnection;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * After a crash, resolves at startup the branches this node prepared in its previous life: rolls back
 * those it never decided to commit, instead of leaving their row locks held until Atomikos presumes abort
 * after {@code max-timeout} (minutes; Narayana's orphan filters do the equivalent), and commits those whose
 * COMMITTING record is in the coordinator log, instead of waiting for that record to expire. Waiting is
 * not only slow: Atomikos presumes abort of an XID it has watched for this JVM's {@code max-timeout}
 * while it replays a commit only once the record expired under the crashed JVM's timeout, so after a
 * restart with a shorter timeout it rolled back a branch whose sibling had committed (chaos scenario 13).
 *
 * <p>Only with a coordinator log that existed, non-empty, before this process started and can be
 * read: a new, empty or unreadable log cannot tell an undecided transaction from a committed one
 * whose record was lost — that is the DBA's case (the recovery console). The log in the business
 * database ({@code lockstep.tm.log=database}) always existed: its table is as durable as the branches. Only this node's XIDs, only
 * those begun before this process started (see {@link OwnOrphan}). The commit or rollback goes through
 * the database's XA resource on a fresh connection, and the audit trail records the intent before and
 * the outcome after (ending a prepared branch cannot share a transaction with anything, so a crash in
 * between leaves an intent without an outcome, which says so).
 *
 * <p>Built before the transaction manager starts (it looks at the log directory as the previous life
 * left it) and run right after the transaction service started, before its recovery can presume abort.
 * It runs inside the context's start, so the web server listens only once it has finished: readiness
 * cannot be UP before it. Its duration is the gauge {@code lockstep_recovery_startup_seconds}.
 */
@Component
@ConditionalOnXaMode
public class StartupBranchResolution implements BeforeRecovery, AfterTransactionServiceStart, MeterBinder {

    static final String ACTOR = "startup-recovery";
    private static final Logger log = LoggerFactory.getLogger(StartupBranchResolution.class);

    private final LockstepProperties properties;
    private final DatabaseEndpoints endpoints;
    private final XaDataSourceFactory factory;
    private final AuditTrail audit;
    private final Instant processStart = Instant.ofEpochMilli(ManagementFactory.getRuntimeMXBean().getStartTime());
    private final boolean logExistedBefore;
    private volatile long durationNanos;

    StartupBranchResolution(LockstepProperties properties, DatabaseEndpoints endpoints, XaDataSourceFactory factory,
            AuditTrail audit) {
        this.properties = properties;
        this.endpoints = endpoints;
        this.factory = factory;
        this.audit = audit;
        this.logExistedBefore = GroupCommitLogFactory.DATABASE.equals(GroupCommitLogFactory.storeOf(properties))
                || nonEmptyLogIn(properties.tmLogDir());
    }

    @Override
    public void transactionServiceStarted() {
        long start = System.nanoTime();
        try {
            resolveOwnBranches();
        } finally {
            durationNanos = System.nanoTime() - start;
        }
    }

    /** What a scrape reads: how long this node's start waited for the pass (0 until it has run). */
    @Override
    public void bindTo(MeterRegistry registry) {
        TimeGauge.builder("lockstep.recovery.startup", this, TimeUnit.NANOSECONDS, pass -> pass.durationNanos)
                .description("How long this node's startup recovery pass (resolving its own prepared branches) took")
                .register(registry);
    }

    private void resolveOwnBranches() {
        if (!logExistedBefore) {
            log.info("coordinator log under {} is new or empty: prepared branches of earlier runs are left to Atomikos"
                    + " and the DBA (no startup resolution)", properties.tmLogDir().toAbsolutePath());
            return;
        }
        Map<String, String> pending;
        try {
            pending = new CoordinatorLog().pendingStates();
        } catch (IllegalStateException unreadable) {
            log.warn("coordinator log unreadable ({}): no startup resolution", unreadable.getMessage());
            return;
        }
        resolve(DatabaseEndpoints.BUSINESS_RESOURCE, "lockstep.db.business", endpoints.business(), pending);
        resolve(DatabaseEndpoints.WORKFLOW_RESOURCE, "lockstep.db.workflow", endpoints.workflow(), pending);
    }

    private void resolve(String resource, String prefix, DatabaseSettings settings, Map<String, String> pending) {
        String selfTm = properties.tm().uniqueName();
        try {
            XAConnection connection = factory.create(prefix, settings).getXAConnection();
            try {
                XAResource xa = connection.getXAResource();
                for (Xid xid : xa.recover(XAResource.TMSTARTRSCAN | XAResource.TMENDRSCAN)) {
                    DecodedXid decoded = new DecodedXid(xid.getFormatId(), xid.getGlobalTransactionId(), xid.getBranchQualifier());
                    try {
                        Optional<String> rollBack = OwnOrphan.reasonToRollBack(decoded, selfTm, processStart, pending);
                        if (rollBack.isPresent()) {
                            end(resource, xa, xid, decoded, false, rollBack.get());
                        }
                        Optional<String> commit = OwnOrphan.reasonToCommit(decoded, selfTm, processStart, pending);
                        if (commit.isPresent()) {
                            end(resource, xa, xid, decoded, true, commit.get());
                        }
                    } catch (RuntimeException oneBranch) {
                        // one branch that cannot be ended now (its audit entry refused, say) leaves the others to do
                        log.warn("startup resolution of {} branch {} skipped: {}", resource, decoded, oneBranch.toString());
                    }
                }
            } finally {
                connection.close();
            }
        } catch (Exception e) {
            // Atomikos's own recovery still resolves them later; the scan failing must not stop the node.
            log.warn("startup resolution on {} skipped: {}", resource, e.toString());
        }
    }

    /** Commits or rolls back one prepared branch, the intent and the outcome each in the audit trail. */
    private void end(String resource, XAResource xa, Xid xid, DecodedXid decoded, boolean commit, String reason) {
        String branch = resource + " branch " + decoded;
        String kind = commit ? "LOGGED_COMMIT_REPLAY" : "ORPHAN_ROLLBACK";
        audit.append(ACTOR, kind + "_INTENDED", decoded.gtridText(), branch + ": " + reason);
        String outcome;
        try {
            if (commit) {
                xa.commit(xid, false);
            } else {
                xa.rollback(xid);
            }
            outcome = commit ? "COMMITTED" : "ROLLED_BACK";
        } catch (XAException e) {
            // XAER_NOTA: gone meanwhile (Atomikos's own pass, or a DBA); anything else: still prepared.
            outcome = e.errorCode == XAException.XAER_NOTA ? "ALREADY_GONE" : "FAILED (XA error " + e.errorCode + ")";
        }
        audit.append(ACTOR, kind + "_" + (outcome.startsWith("FAILED") ? "FAILED" : outcome), decoded.gtridText(),
                branch + ": " + outcome);
        log.warn("startup {} of {}: {} ({})", commit ? "replay of a logged commit" : "orphan rollback", branch, outcome, reason);
    }

    /** Atomikos writes {@code lockstep-tm*.log} under the log directory; any non-empty one means a previous life. */
    private static boolean nonEmptyLogIn(Path directory) {
        if (!Files.isDirectory(directory)) {
            return false;
        }
        try (DirectoryStream<Path> logs = Files.newDirectoryStream(directory, "lockstep-tm*.log")) {
            for (Path file : logs) {
                if (Files.size(file) > 0) {
                    return true;
                }
            }
            return false;
        } catch (IOException e) {
            log.warn("cannot list the coordinator log directory {}: {}", directory, e.toString());
            return false;
        }
    }
}
