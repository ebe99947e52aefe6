package dev.lockstep.history.archive;

import com.github.kagkarlsson.scheduler.task.helper.RecurringTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.github.kagkarlsson.scheduler.task.schedule.FixedDelay;
import dev.lockstep.platform.ConditionalOnXaMode;
import dev.lockstep.platform.LockstepProperties;
import dev.lockstep.platform.StartupCheckFailure;
import dev.lockstep.platform.audit.AuditTrail;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.persistence.EntityManager;
import java.time.Clock;
import java.time.Duration;
import org.activiti.engine.HistoryService;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;

/** History archival as a job of the cluster scheduler ({@code dev.lockstep.platform.ClusterScheduler}): one node at a time. */
@Configuration(proxyBeanMethods = false)
@ConditionalOnXaMode
@EnableConfigurationProperties(ArchivalProperties.class)
public class ArchivalConfiguration {

    static final String JOB = "history-archival";

    @Bean
    HistoryArchival historyArchival(ArchivalProperties settings, @Value("${lockstep.engine.history-level:audit}") String historyLevel,
            LockstepProperties lockstep, PlatformTransactionManager transactionManager, EntityManager entityManager,
            HistoryService history, HistoryArchive archive, AuditTrail audit, MeterRegistry meters) {
        ArchivalProperties effective = settings.withBatchTimeLimitWithin(lockstep.tm().defaultTimeout());
        check(effective, historyLevel, lockstep.tm().defaultTimeout());
        return new HistoryArchival(transactionManager, entityManager, history, archive, audit, effective, Clock.systemUTC(), meters);
    }

    @Bean
    @ConditionalOnBooleanProperty(name = "lockstep.archival.enabled", matchIfMissing = true)
    RecurringTask<Void> historyArchivalJob(HistoryArchival archival, ArchivalProperties settings) {
        return Tasks.recurring(JOB, FixedDelay.of(settings.interval())).execute((instance, context) -> archival.scheduled());
    }

    static void check(ArchivalProperties settings, String historyLevel, Duration transactionTimeout) {
        if (settings.batchSize() < 1 || settings.batchSize() > 1000) {
            throw new StartupCheckFailure("lockstep.archival.batch-size", settings.batchSize() + " processes per batch is out of range.",
                    "set a number of process instances per batch between 1 and 1000 (default 50)");
        }
        // the batch's last process, its archive rows, the audit entry and the two-phase commit follow the limit
        if (settings.batchTimeLimit().isNegative() || settings.batchTimeLimit().multipliedBy(2).compareTo(transactionTimeout) > 0) {
            throw new StartupCheckFailure("lockstep.archival.batch-time-limit", settings.batchTimeLimit()
                    + " is not between 0 and half the transaction timeout (lockstep.tm.default-timeout " + transactionTimeout + ").",
                    "set a batch time limit of at most half lockstep.tm.default-timeout, or leave it unset for a third of it");
        }
        if (settings.minAge().compareTo(Duration.ofDays(1)) < 0) {
            throw new StartupCheckFailure("lockstep.archival.min-age", settings.minAge() + " is below one day.",
                    "set how long after its end a process is archived, at least 1d (default 180d)");
        }
        if (settings.pauseBetweenBatches().isNegative() || settings.pauseBetweenBatches().compareTo(Duration.ofMinutes(1)) > 0) {
            throw new StartupCheckFailure("lockstep.archival.pause-between-batches", settings.pauseBetweenBatches()
                    + " is not between 0 and one minute.", "set a pause between 0s and 1m (default 1s)");
        }
        if (settings.interval().compareTo(Duration.ofMinutes(1)) < 0) {
            throw new StartupCheckFailure("lockstep.archival.interval", settings.interval() + " is below one minute.",
                    "set the pause between two scheduled runs to at least 1m (default 10m)");
        }
        checkHour("lockstep.archival.window-start-hour", settings.windowStartHour());
        checkHour("lockstep.archival.window-end-hour", settings.windowEndHour());
        if (settings.enabled() && "full".equalsIgnoreCase(historyLevel)) {
            throw new StartupCheckFailure("lockstep.archival.enabled", "the engine's history level is full: it records variable"
                    + " updates and form details the archive does not keep, so archival would lose them.",
                    "set lockstep.archival.enabled=false, or lockstep.engine.history-level=audit");
        }
    }

    private static void checkHour(String setting, int hour) {
        if (hour < 0 || hour > 23) {
            throw new StartupCheckFailure(setting, hour + " is not an hour of the day.",
                    "set an hour between 0 and 23; start and end equal means all day");
        }
    }
}
