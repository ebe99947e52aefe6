package dev.lockstep.recovery;

import com.atomikos.icatch.jta.UserTransactionManager;
import com.atomikos.publish.EventPublisher;
import com.github.kagkarlsson.scheduler.task.helper.RecurringTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.github.kagkarlsson.scheduler.task.schedule.FixedDelay;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.lockstep.platform.ConditionalOnXaMode;
import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.platform.DatabaseSettings;
import dev.lockstep.platform.DatabaseVendor;
import dev.lockstep.platform.LockstepProperties;
import dev.lockstep.platform.audit.AuditTrail;
import dev.lockstep.transactions.xa.XaDataSourceFactory;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.activiti.engine.HistoryService;
import org.activiti.engine.RuntimeService;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * The in-doubt monitor. Everything here talks to the databases over plain, non-XA connections:
 * the monitor must see prepared branches from outside, and its own writes (heartbeats, intents,
 * audit) must never become part of the transactions it watches. XA modes only: the single-database
 * mode has no prepared transactions to watch.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnXaMode
@EnableScheduling
@EnableConfigurationProperties(RecoveryProperties.class)
public class RecoveryConfiguration {

    private static final Clock CLOCK = Clock.systemUTC();

    /** A small pool of its own: the intent journal writes once per use case and must not open a connection each time. */
    @Bean(destroyMethod = "close")
    HikariDataSource recoveryBusinessDataSource(DatabaseEndpoints endpoints) {
        HikariConfig config = endpoints.business().plainPool("recovery-business", 4);
        config.setMinimumIdle(1);
        config.setAutoCommit(true);
        // The journal writes on the request's path, right before and after the two-phase commit: with the
        // business database down it must fail in seconds (the use case then fails, or the outcome mark is
        // skipped), not hold the request for Hikari's default 30 s on top of Atomikos's own retries.
        config.setConnectionTimeout(2_000);
        config.setValidationTimeout(1_000);
        return new HikariDataSource(config);
    }

    @Bean
    NodeRegistry nodeRegistry(LockstepProperties lockstep, RecoveryProperties properties,
            @Qualifier("recoveryBusinessDataSource") HikariDataSource business) {
        return new NodeRegistry(lockstep.tm().uniqueName(), new JdbcTemplate(business), properties, CLOCK);
    }

    @Bean
    IntentJournal intentJournal(UserTransactionManager transactionManager, LockstepProperties lockstep,
            @Qualifier("recoveryBusinessDataSource") HikariDataSource business, DatabaseEndpoints endpoints,
            HeuristicEventRecorder heuristics) {
        return new IntentJournal(transactionManager, new JdbcTemplate(business), heuristics, lockstep.tm().uniqueName(), CLOCK,
                endpoints.business().vendor() == DatabaseVendor.POSTGRESQL);
    }

    /** Every entry names the clock that stamped it: this JVM's UTC clock on this node. */
    @Bean
    AuditTrail recoveryAuditTrail(LockstepProperties lockstep, @Qualifier("recoveryBusinessDataSource") HikariDataSource business) {
        return new AuditTrail(business, CLOCK, "jvm-utc@" + lockstep.tm().uniqueName());
    }

    /**
     * Chains the audit entries waiting in the intake, in batches: every decision's entry (decisions are not chained
     * one by one after their commit, which would take the chain's lock once per request), and a forced action's
     * whose two-phase transaction committed without the chaining after it (a DBA or recovery committed the branch,
     * or the node died in between). One node at a time.
     */
    @Bean
    RecurringTask<Void> auditChainJob(AuditTrail audit, RecoveryProperties properties) {
        return Tasks.recurring("audit-chain", FixedDelay.of(properties.auditChainInterval()))
                .execute((instance, context) -> audit.chain());
    }

    /**
     * Registered with Atomikos's publisher directly: its ServiceLoader route would instantiate the
     * listener outside Spring, without the database connection it writes to.
     */
    @Bean
    HeuristicEventRecorder heuristicEventRecorder(LockstepProperties lockstep, UserTransactionManager transactionManager,
            @Qualifier("recoveryBusinessDataSource") HikariDataSource business, MeterRegistry meters) {
        HeuristicEventRecorder recorder = new HeuristicEventRecorder(new JdbcTemplate(business), lockstep.tm().uniqueName(),
                CLOCK, meters);
        EventPublisher.INSTANCE.registerEventListener(recorder);
        return recorder;
    }

    /** Depends on the transaction manager so its recovery log is open before the first scan reads it. */
    @Bean
    InDoubtMonitor inDoubtMonitor(DatabaseEndpoints endpoints, XaDataSourceFactory factory, NodeRegistry nodes,
            IntentJournal intents, HeuristicEventRecorder heuristics, UserTransactionManager transactionManager,
            RecoveryProperties properties,
            @Qualifier("recoveryBusinessDataSource") HikariDataSource business, MeterRegistry meters) {
        List<BranchStore> stores = List.of(
                store(DatabaseEndpoints.BUSINESS_RESOURCE, "lockstep.db.business", endpoints.business(), factory),
                store(DatabaseEndpoints.WORKFLOW_RESOURCE, "lockstep.db.workflow", endpoints.workflow(), factory));
        return new InDoubtMonitor(stores, nodes, new CoordinatorLog(), intents, heuristics, new JdbcTemplate(business),
                properties, CLOCK, meters);
    }

    /** The settle time keeps a commit that is still between the two databases from being reported. */
    @Bean
    CrossDatabaseCheck crossDatabaseCheck(@Qualifier("recoveryBusinessDataSource") HikariDataSource business,
            RuntimeService runtime, HistoryService history) {
        return new CrossDatabaseCheck(new JdbcTemplate(business), runtime, history, Duration.ofSeconds(30), CLOCK);
    }

    @Bean
    ResolutionJournal resolutionJournal(AuditTrail audit, @Qualifier("recoveryBusinessDataSource") HikariDataSource business) {
        return new ResolutionJournal(business, audit, CLOCK);
    }

    @Bean
    ResolutionService resolutionService(InDoubtMonitor monitor, AuditTrail audit, ResolutionJournal journal,
            RecoveryProperties properties, @Qualifier("recoveryBusinessDataSource") HikariDataSource business,
            MeterRegistry meters) {
        return new ResolutionService(monitor, audit, journal, new JdbcTemplate(business), properties, CLOCK, meters);
    }

    @Bean
    InDoubtTransactionsHealthIndicator inDoubtTransactionsHealthIndicator(InDoubtMonitor monitor) {
        return new InDoubtTransactionsHealthIndicator(monitor);
    }

    private static BranchStore store(String resource, String prefix, DatabaseSettings settings, XaDataSourceFactory factory) {
        return settings.vendor() == DatabaseVendor.ORACLE
                ? new OracleBranchStore(resource, settings.plainDataSource(), factory.create(prefix, settings))
                : new PostgresBranchStore(resource, settings.plainDataSource());
    }
}
