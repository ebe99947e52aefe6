package dev.lockstep.history.retention;

import com.github.kagkarlsson.scheduler.task.helper.RecurringTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.github.kagkarlsson.scheduler.task.schedule.FixedDelay;
import com.zaxxer.hikari.HikariDataSource;
import dev.lockstep.platform.ConditionalOnXaMode;
import dev.lockstep.platform.StartupCheckFailure;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/** The retention purge as a job of the cluster scheduler ({@code dev.lockstep.platform.ClusterScheduler}). */
@Configuration(proxyBeanMethods = false)
@ConditionalOnXaMode
@EnableConfigurationProperties(RetentionProperties.class)
public class RetentionConfiguration {

    static final String JOB = "retention-purge";

    @Bean
    RetentionPurge retentionPurge(RetentionProperties properties, @Qualifier("schedulerDataSource") HikariDataSource dataSource,
            MeterRegistry meters) {
        check(properties);
        return new RetentionPurge(new JdbcTemplate(dataSource), properties, Clock.systemUTC(), meters);
    }

    @Bean
    @ConditionalOnBooleanProperty(name = "lockstep.retention.enabled", matchIfMissing = true)
    RecurringTask<Void> retentionPurgeJob(RetentionPurge purge, RetentionProperties properties) {
        return Tasks.recurring(JOB, FixedDelay.of(properties.interval())).execute((instance, context) -> purge.purge());
    }

    private static void check(RetentionProperties properties) {
        if (properties.batchSize() < 1 || properties.batchSize() > 10_000) {
            throw new StartupCheckFailure("lockstep.retention.batch-size", properties.batchSize() + " rows per delete is out of range.",
                    "set a number of rows per delete between 1 and 10000 (default 500)");
        }
        Map.of("lockstep.retention.interval", properties.interval(),
                "lockstep.retention.workflow-command", properties.workflowCommand(),
                "lockstep.retention.recovery-intent", properties.recoveryIntent(),
                "lockstep.retention.heuristic", properties.heuristic()).forEach((setting, value) -> {
            if (value.compareTo(Duration.ofMinutes(1)) < 0) {
                throw new StartupCheckFailure(setting, value + " is below one minute.",
                        "set a duration of at least 1m, e.g. 90d for a retention or 1h for the interval");
            }
        });
    }
}
