package dev.lockstep.platform;

import com.github.kagkarlsson.scheduler.task.helper.RecurringTask;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.time.Duration;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@link ClusterScheduler} on a small plain (non-XA) pool of the business database (in the single-database
 * mode, the one database). Every bean of type {@link RecurringTask} is one of its jobs; the deadline scan runs in
 * every mode, the others only where two databases commit through XA.
 */
@Configuration(proxyBeanMethods = false)
public class ClusterSchedulerConfiguration {

    /**
     * Jobs and the scheduler's polls and heartbeats share it; two connections are plenty for both. With the business
     * database's timeouts, a job stuck behind an in-doubt row lock or a silent server fails its run instead of holding
     * the scheduler's threads.
     */
    @Bean(destroyMethod = "close")
    HikariDataSource schedulerDataSource(DatabaseEndpoints endpoints) {
        HikariConfig config = endpoints.business().plainPool("cluster-scheduler", 3);
        config.setAutoCommit(true);
        return new HikariDataSource(config);
    }

    @Bean
    ClusterScheduler clusterScheduler(@Qualifier("schedulerDataSource") HikariDataSource dataSource, LockstepProperties lockstep,
            ObjectProvider<RecurringTask<?>> jobs, @Value("${lockstep.scheduler.polling-interval:10s}") Duration pollingInterval,
            @Value("${lockstep.scheduler.heartbeat-interval:10s}") Duration heartbeatInterval) {
        if (heartbeatInterval.compareTo(Duration.ofSeconds(1)) < 0 || heartbeatInterval.compareTo(Duration.ofMinutes(5)) > 0) {
            throw new StartupCheckFailure("lockstep.scheduler.heartbeat-interval", heartbeatInterval + " is not between 1s and 5m.",
                    "set how often a node marks the jobs it runs as alive, e.g. 10s (the default): a job whose node missed "
                            + ClusterScheduler.MISSED_HEARTBEATS + " runs again on another node");
        }
        return new ClusterScheduler(dataSource, lockstep.tm().uniqueName(), jobs.orderedStream().toList(), pollingInterval,
                heartbeatInterval);
    }
}
