package dev.lockstep.recovery;

import dev.lockstep.platform.DatabaseVendor;
import dev.lockstep.platform.FencedNode;
import dev.lockstep.platform.StartupCheckFailure;
import dev.lockstep.transactions.xa.BeforeRecovery;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * This node's lease on its transaction-manager name in the business database ({@code recovery_node}:
 * holder location, instance, expiry). Atomikos recovers every XID whose branch starts with its name,
 * so two live nodes under one name would roll back each other's in-flight branches: a node at
 * another location refuses to start while the lease is live. The location is the host plus the
 * absolute coordinator log directory — the node's identity: a restart of the same node (same host,
 * same log) takes its name back at once, and two processes on one log cannot both run because
 * Atomikos locks its log file. The lease is taken before Atomikos starts (and runs its first recovery
 * pass), renewed by every heartbeat, and taken over from another location only once expired. Expiry
 * is judged by the database's clock, the one clock every node shares.
 *
 * <p>Every acquisition increments the name's {@code epoch}. The heartbeat and every write to the coordinator log in
 * the database name the epoch this instance acquired, so once another instance has acquired the name they change
 * nothing, and this instance stops ({@link FencedNode}).
 */
public class TransactionManagerLease implements BeforeRecovery {

    static final String SETTING = "lockstep.tm.unique-name";
    private static final Logger log = LoggerFactory.getLogger(TransactionManagerLease.class);

    private final String tmName;
    private final String location;
    private final String instanceId = UUID.randomUUID().toString();
    private final JdbcTemplate business;
    private final Duration duration;
    private final LeaseStatements statements;
    private final String logStore;
    private long epoch;
    private final ScheduledExecutorService heartbeat = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "tm-lease-heartbeat");
        thread.setDaemon(true);
        return thread;
    });

    /** {@code logStore}: where this node keeps its coordinator log; a peer takes over only names whose log it can read. */
    public TransactionManagerLease(String tmName, String location, String logStore, JdbcTemplate business,
            DatabaseVendor vendor, Duration duration) {
        this.tmName = tmName;
        this.location = location;
        this.logStore = logStore;
        this.business = business;
        this.duration = duration;
        this.statements = vendor == DatabaseVendor.ORACLE ? LeaseStatements.ORACLE : LeaseStatements.POSTGRESQL;
    }

    public String instanceId() {
        return instanceId;
    }

    /** The epoch this instance acquired the name under (after {@link #acquire()}). */
    public long epoch() {
        return epoch;
    }

    /**
     * Takes the name, or stops the startup when a node at another location holds a lease on it that
     * has not expired. A row written before leases existed (no holder) counts as held while its
     * heartbeat is fresher than the lease duration.
     */
    public void acquire() {
        long seconds = duration.toSeconds();
        int taken;
        try {
            taken = business.update(statements.acquire(), statements.acquireArguments(tmName, location, instanceId, logStore, seconds));
        } catch (DuplicateKeyException raced) {
            taken = 0; // another node inserted the row in the same moment: it holds the name
        }
        if (taken == 0) {
            Map<String, Object> holder = business.queryForMap(
                    "select holder_location, lease_expires_at, heartbeat_at from recovery_node where tm_name = ?", tmName);
            throw new StartupCheckFailure(SETTING, "'" + tmName + "' is in use by another live node (at "
                    + holder.get("holder_location") + ", last heartbeat " + holder.get("heartbeat_at") + ", lease until "
                    + holder.get("lease_expires_at") + "); this node is at " + location + ". Two nodes under one name would"
                    + " recover, and roll back, each other's transactions.",
                    "give this node its own " + SETTING + " (env LOCKSTEP_TM_UNIQUE_NAME), e.g. lockstep-2.tm. If the other"
                            + " node has really moved here (same name, new host or log directory) and is stopped, start"
                            + " this one again once the lease has expired (lockstep.recovery.heartbeat-timeout, " + duration
                            + ").");
        }
        // by instance: the row this statement changed, even if another instance has taken the name since
        epoch = business.queryForObject("select epoch from recovery_node where tm_name = ? and instance_id = ?", Long.class,
                tmName, instanceId);
        log.info("transaction manager name {} leased to {} (instance {}, epoch {}) for {}", tmName, location, instanceId,
                epoch, duration);
    }

    /**
     * The heartbeat, from the moment the name is ours: a startup slower than the lease (a cold JVM on a busy host) must
     * not let a peer take the name over from a node that is alive, and a drain keeps it until {@link #release()}.
     */
    public void renewEvery(Duration interval) {
        heartbeat.scheduleWithFixedDelay(() -> {
            try {
                renewOrStop();
            } catch (RuntimeException e) {
                // the database out of reach: the next beat tries again; the lease runs out if it stays so
                log.warn("lease heartbeat of {} failed: {}", tmName, e.toString());
            }
        }, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** On an orderly stop: the name is free for another location at once (a crashed node's lease runs out instead). */
    public void release() {
        heartbeat.shutdownNow();
        business.update(statements.release(), tmName, epoch);
    }

    /**
     * Extends the lease; false when another instance has acquired the name since (this node lost the database for
     * longer than the lease, or was paused): this node is fenced.
     */
    public boolean renew() {
        return business.update(statements.renew(), duration.toSeconds(), tmName, epoch) == 1;
    }

    /** One beat: {@link #renew()}, and a fenced node stops. */
    void renewOrStop() {
        if (!renew()) {
            FencedNode.stop(tmName, epoch, business.queryForObject("select epoch from recovery_node where tm_name = ?",
                    Long.class, tmName));
        }
    }

    /** The lease's statements by vendor: the database's clock decides expiry, so every node compares against one clock. */
    private enum LeaseStatements {
        POSTGRESQL {
            @Override
            String acquire() {
                return """
                        insert into recovery_node (tm_name, started_at, heartbeat_at, holder_location, instance_id,
                               log_store, lease_expires_at, epoch)
                        values (?, now(), now(), ?, ?, ?, now() + make_interval(secs => ?), 1)
                        on conflict (tm_name) do update set started_at = excluded.started_at,
                               heartbeat_at = excluded.heartbeat_at, holder_location = excluded.holder_location,
                               instance_id = excluded.instance_id, log_store = excluded.log_store,
                               lease_expires_at = excluded.lease_expires_at, epoch = recovery_node.epoch + 1
                         where recovery_node.holder_location = excluded.holder_location
                            or recovery_node.lease_expires_at < now()
                            or (recovery_node.holder_location is null
                                and recovery_node.heartbeat_at < now() - make_interval(secs => ?))
                        """;
            }

            @Override
            Object[] acquireArguments(String tmName, String location, String instanceId, String logStore, long seconds) {
                return new Object[] {tmName, location, instanceId, logStore, seconds, seconds};
            }

            @Override
            String release() {
                return "update recovery_node set lease_expires_at = now() where tm_name = ? and epoch = ?";
            }

            @Override
            String renew() {
                return "update recovery_node set heartbeat_at = now(), lease_expires_at = now() + make_interval(secs => ?)"
                        + " where tm_name = ? and epoch = ?";
            }
        },

        ORACLE {
            @Override
            String acquire() {
                return """
                        merge into recovery_node n
                        using (select ? tm_name, ? holder_location, ? instance_id, ? log_store from dual) s
                              on (n.tm_name = s.tm_name)
                        when matched then update set n.started_at = systimestamp, n.heartbeat_at = systimestamp,
                               n.holder_location = s.holder_location, n.instance_id = s.instance_id,
                               n.log_store = s.log_store,
                               n.lease_expires_at = systimestamp + numtodsinterval(?, 'SECOND'), n.epoch = n.epoch + 1
                         where n.holder_location = s.holder_location or n.lease_expires_at < systimestamp
                            or (n.holder_location is null and n.heartbeat_at < systimestamp - numtodsinterval(?, 'SECOND'))
                        when not matched then insert (tm_name, started_at, heartbeat_at, holder_location, instance_id,
                               log_store, lease_expires_at, epoch)
                               values (s.tm_name, systimestamp, systimestamp, s.holder_location, s.instance_id,
                                       s.log_store, systimestamp + numtodsinterval(?, 'SECOND'), 1)
                        """;
            }

            @Override
            Object[] acquireArguments(String tmName, String location, String instanceId, String logStore, long seconds) {
                return new Object[] {tmName, location, instanceId, logStore, seconds, seconds, seconds};
            }

            @Override
            String release() {
                return "update recovery_node set lease_expires_at = systimestamp where tm_name = ? and epoch = ?";
            }

            @Override
            String renew() {
                return "update recovery_node set heartbeat_at = systimestamp, lease_expires_at = systimestamp"
                        + " + numtodsinterval(?, 'SECOND') where tm_name = ? and epoch = ?";
            }
        };

        /** Takes the name unless a live node at another location holds it; one row changed when taken. */
        abstract String acquire();

        abstract Object[] acquireArguments(String tmName, String location, String instanceId, String logStore, long seconds);

        /** Arguments: name, epoch. */
        abstract String release();

        /** Arguments: lease seconds, name, epoch. */
        abstract String renew();
    }
}
