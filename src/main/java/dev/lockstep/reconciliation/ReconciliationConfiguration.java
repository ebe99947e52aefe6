package dev.lockstep.reconciliation;

import com.github.kagkarlsson.scheduler.task.helper.RecurringTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.github.kagkarlsson.scheduler.task.schedule.FixedDelay;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.lockstep.approval.ApplicationRepository;
import dev.lockstep.approval.BusinessProcessBindingRepository;
import dev.lockstep.approval.RunningApplications;
import dev.lockstep.approval.todo.TaskProjectionRebuild;
import dev.lockstep.approval.todo.TaskProjectionRefresh;
import dev.lockstep.platform.ConditionalOnXaMode;
import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.platform.DatabaseVendor;
import dev.lockstep.platform.LockstepProperties;
import dev.lockstep.platform.audit.AuditTrail;
import dev.lockstep.platform.health.HealthProbes;
import dev.lockstep.publishing.delivery.CatalogClient;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.persistence.EntityManager;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.activiti.engine.HistoryService;
import org.activiti.engine.ManagementService;
import org.activiti.engine.RuntimeService;
import org.activiti.engine.TaskService;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reconciliation (docs/reconciliation.md). XA modes only: its repairs and incident steps are XA transactions
 * with an entry in the recovery audit trail, whose plain business pool it also reads through.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnXaMode
@EnableConfigurationProperties(ReconciliationProperties.class)
class ReconciliationConfiguration {

    private static final Clock CLOCK = Clock.systemUTC();

    /** The application rules, then those other capabilities contribute as beans. */
    @Bean
    ReconciliationRules reconciliationRules(ObjectProvider<ReconciliationRule> contributed) {
        List<ReconciliationRule> rules = new ArrayList<>(BuiltInRules.ALL);
        contributed.orderedStream().forEach(rules::add);
        return new ReconciliationRules(List.copyOf(rules));
    }

    /**
     * The incremental scan as a job of the cluster scheduler: one node at a time, whatever the number of nodes. The run
     * executes inside the job, so the next one (on whichever node) starts only after it has finished.
     */
    @Bean
    @ConditionalOnBooleanProperty(name = "lockstep.reconciliation.enabled", matchIfMissing = true)
    RecurringTask<Void> reconciliationIncrementalJob(Reconciliation reconciliation, ReconciliationProperties settings,
            LockstepProperties lockstep) {
        return Tasks.recurring("reconciliation-incremental", FixedDelay.of(settings.incrementalInterval()))
                .execute((instance, context) -> reconciliation.runAsScheduledJob(Reconciliation.Kind.INCREMENTAL,
                        lockstep.tm().uniqueName()));
    }

    @Bean
    @ConditionalOnBooleanProperty(name = "lockstep.reconciliation.enabled", matchIfMissing = true)
    RecurringTask<Void> reconciliationFullSweepJob(Reconciliation reconciliation, ReconciliationProperties settings,
            LockstepProperties lockstep) {
        return Tasks.recurring("reconciliation-full-sweep", FixedDelay.of(settings.fullSweepInterval()))
                .execute((instance, context) -> reconciliation.runAsScheduledJob(Reconciliation.Kind.FULL,
                        lockstep.tm().uniqueName()));
    }

    @Bean
    ReconciliationDialect reconciliationDialect(DatabaseEndpoints endpoints) {
        return ReconciliationDialect.of(endpoints.business().vendor());
    }

    /** The catalog's answers for PUBLISHED applications, through publishing's client (none in a mode without one). */
    @Bean
    CatalogEvidence reconciliationCatalogEvidence(ObjectProvider<CatalogClient> catalog) {
        return new CatalogEvidence(catalog.getIfAvailable());
    }

    /**
     * A run's plain reads of the engine's tables (EvidenceReader.readPage): two connections, read-only (PostgreSQL
     * refuses any write on them), outside any XA transaction.
     */
    @Bean(destroyMethod = "close")
    HikariDataSource reconciliationWorkflowDataSource(DatabaseEndpoints endpoints) {
        HikariConfig config = endpoints.workflow().plainPool("reconciliation-workflow", 2);
        config.setReadOnly(true);
        if (endpoints.workflow().vendor() == DatabaseVendor.POSTGRESQL) {
            config.addDataSourceProperty("readOnlyMode", "always");
        }
        return new HikariDataSource(config);
    }

    @Bean
    EvidenceReader reconciliationEvidenceReader(RuntimeService runtime, HistoryService history, TaskService tasks,
            ManagementService management, @Qualifier("reconciliationWorkflowDataSource") HikariDataSource workflow,
            ReconciliationProperties settings) {
        return new EvidenceReader(runtime, history, tasks, management, new JdbcTemplate(workflow), settings, CLOCK);
    }

    @Bean
    ReconciliationTransaction reconciliationTransaction(PlatformTransactionManager transactionManager, EntityManager entityManager,
            AuditTrail audit) {
        return new ReconciliationTransaction(transactionManager, entityManager, audit);
    }

    @Bean
    SafeRepairs safeRepairs(ReconciliationTransaction transaction, EvidenceReader reader, ApplicationRepository applications,
            BusinessProcessBindingRepository bindings, RunningApplications running, TaskProjectionRebuild projection,
            TaskProjectionRefresh projectedTasks, JsonMapper json) {
        return new SafeRepairs(transaction, reader, applications, bindings, running, projection, projectedTasks, json, CLOCK);
    }

    @Bean
    Incidents reconciliationIncidents(ReconciliationTransaction transaction, EvidenceReader reader, CatalogEvidence catalog,
            SafeRepairs repairs, @Qualifier("recoveryBusinessDataSource") HikariDataSource business, ReconciliationDialect dialect,
            JsonMapper json) {
        return new Incidents(transaction, reader, catalog, repairs, new JdbcTemplate(business), dialect, json, CLOCK);
    }

    @Bean
    ReconciliationSignals reconciliationSignals(ReconciliationRules rules,
            @Qualifier("recoveryBusinessDataSource") HikariDataSource business, MeterRegistry meters) {
        return new ReconciliationSignals(rules.all(), new JdbcTemplate(business), meters, CLOCK);
    }

    /** Its queries borrow from the recovery console's pool: asked on every health request, they would drain it. */
    @Bean
    HealthIndicator reconciliationHealthIndicator(ReconciliationSignals signals, HealthProbes probes) {
        return probes.probed("reconciliation", signals::health);
    }

    /** One run at a time, on a thread of its own: never inside a request's transaction. */
    @Bean(destroyMethod = "shutdownNow")
    ExecutorService reconciliationExecutor() {
        return Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "reconciliation");
            thread.setDaemon(true);
            return thread;
        });
    }

    @Bean
    Reconciliation reconciliation(ReconciliationRules rules, EvidenceReader reader, CatalogEvidence catalog, SafeRepairs repairs,
            Incidents incidents, ReconciliationSignals signals, @Qualifier("recoveryBusinessDataSource") HikariDataSource business,
            @Qualifier("reconciliationExecutor") ExecutorService executor, ReconciliationProperties settings,
            ReconciliationDialect dialect) {
        return new Reconciliation(rules.all(), reader, catalog, repairs, incidents, signals, new JdbcTemplate(business), executor,
                settings, dialect, CLOCK);
    }

    /** The rules every run applies, in order. */
    record ReconciliationRules(List<ReconciliationRule> all) {
    }
}
