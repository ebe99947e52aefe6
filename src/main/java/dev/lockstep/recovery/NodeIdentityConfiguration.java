package dev.lockstep.recovery;

import com.zaxxer.hikari.HikariDataSource;
import dev.lockstep.platform.ConditionalOnXaMode;
import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.platform.LockstepProperties;
import dev.lockstep.transactions.xa.BeforeRecovery;
import dev.lockstep.transactions.xa.log.DatabaseLogTarget;
import dev.lockstep.transactions.xa.log.ConditionalOnDatabaseLog;
import dev.lockstep.transactions.xa.log.GroupCommitLogFactory;
import java.net.InetAddress;
import java.net.UnknownHostException;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.flyway.autoconfigure.FlywayMigrationInitializer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The node's identity in a cluster: its transaction-manager name, leased before the transaction
 * manager starts. The lease needs its table, so the business migrations run first.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnXaMode
@EnableConfigurationProperties({LockstepProperties.class, RecoveryProperties.class})
public class NodeIdentityConfiguration {

    /** A {@link dev.lockstep.transactions.xa.BeforeRecovery}: no recovery pass before the name is ours. */
    @Bean(destroyMethod = "release")
    TransactionManagerLease transactionManagerNameLease(LockstepProperties lockstep, RecoveryProperties recovery,
            DatabaseEndpoints endpoints, FlywayMigrationInitializer migrated) {
        TransactionManagerLease lease = new TransactionManagerLease(lockstep.tm().uniqueName(), location(lockstep),
                GroupCommitLogFactory.storeOf(lockstep),
                new JdbcTemplate(endpoints.business().plainDataSource()), endpoints.business().vendor(),
                recovery.heartbeatTimeout());
        lease.acquire();
        lease.renewEvery(recovery.heartbeatInterval());
        if (GroupCommitLogFactory.FILE.equals(GroupCommitLogFactory.storeOf(lockstep))) {
            // the name is ours now: no other instance can add rows while we look
            try {
                GroupCommitLogFactory.refuseSwitchLeaving(GroupCommitLogFactory.FILE, new JdbcTemplate(endpoints.business()
                        .plainDataSource()).queryForList("select coordinator_id from tm_coordinator_log where tm_name = ?"
                        + " and state <> 'TERMINATED'", String.class, lockstep.tm().uniqueName()), "table tm_coordinator_log");
            } catch (RuntimeException refused) {
                lease.release();
                throw refused;
            }
        }
        return lease;
    }

    /**
     * With the log in the database ({@link ConditionalOnDatabaseLog}), Atomikos's log writes on a pool of its own (a decision never waits for a
     * connection the use cases hold) under the epoch the lease was acquired with. Two connections: one commits a
     * group of decisions while the next group's leader waits, and recovery reads at startup.
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnDatabaseLog
    HikariDataSource coordinatorLogDataSource(DatabaseEndpoints endpoints) {
        return new HikariDataSource(endpoints.business().plainPool("coordinator-log", 2));
    }

    /** A {@link BeforeRecovery}: the log's target is installed before Atomikos opens its log. */
    @Bean
    @ConditionalOnDatabaseLog
    BeforeRecovery coordinatorLogInTheDatabase(TransactionManagerLease lease, LockstepProperties lockstep,
            DatabaseEndpoints endpoints, @Qualifier("coordinatorLogDataSource") HikariDataSource pool) {
        DatabaseLogTarget.install(new DatabaseLogTarget(pool, endpoints.business().vendor(), lockstep.tm().uniqueName(),
                lease.epoch()));
        return new BeforeRecovery() {
        };
    }

    /** Where this node keeps its coordinator log: host and absolute directory. */
    static String location(LockstepProperties lockstep) {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            host = "unknown-host";
        }
        return host + ":" + lockstep.tmLogDir().toAbsolutePath().normalize();
    }
}
