package dev.lockstep.recovery;

import dev.lockstep.platform.ConditionalOnXaMode;
import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.platform.LockstepProperties;
import java.net.InetAddress;
import java.net.UnknownHostException;
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
                new JdbcTemplate(endpoints.business().plainDataSource()), endpoints.business().vendor(),
                recovery.heartbeatTimeout());
        lease.acquire();
        return lease;
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
