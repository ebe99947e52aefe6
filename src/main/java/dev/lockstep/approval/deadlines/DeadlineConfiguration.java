package dev.lockstep.approval.deadlines;

import com.github.kagkarlsson.scheduler.task.helper.RecurringTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.github.kagkarlsson.scheduler.task.schedule.FixedDelay;
import dev.lockstep.approval.todo.TaskProjection;
import dev.lockstep.platform.StartupCheckFailure;
import java.time.Duration;
import org.activiti.engine.ProcessEngine;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;

/** Step deadline policies and the scan that fires reminders and escalations (docs/operations.md, "Step deadlines"). */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(DeadlineProperties.class)
class DeadlineConfiguration {

    static final String JOB = "deadline-scan";

    @Bean
    DeadlineScan deadlineScan(PlatformTransactionManager transactionManager, TaskProjection projection, Deadlines deadlines,
            ProcessEngine engine, DeadlineMetrics metrics) {
        return new DeadlineScan(transactionManager, projection, deadlines, engine, metrics);
    }

    /** Off with the engine's job executor: pausing deadlines is one setting ({@code lockstep.engine.jobs.enabled=false}). */
    @Bean
    @ConditionalOnBooleanProperty(name = "lockstep.engine.jobs.enabled", matchIfMissing = true)
    RecurringTask<Void> deadlineScanJob(DeadlineScan scan, @Value("${lockstep.deadlines.scan-interval:10s}") Duration interval) {
        if (interval.isNegative() || interval.isZero() || interval.compareTo(Duration.ofMinutes(10)) > 0) {
            throw new StartupCheckFailure("lockstep.deadlines.scan-interval", interval + " is not between 0 and 10 minutes.",
                    "set how often a node looks for due reminders and escalations, e.g. 10s (the default)");
        }
        return Tasks.recurring(JOB, FixedDelay.of(interval)).execute((instance, context) -> scan.run());
    }
}
