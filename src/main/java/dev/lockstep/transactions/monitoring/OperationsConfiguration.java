package dev.lockstep.transactions.monitoring;

import com.atomikos.icatch.jta.UserTransactionManager;
import dev.lockstep.platform.ConditionalOnXaMode;
import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.platform.LockstepProperties;
import dev.lockstep.platform.health.HealthProbes;
import dev.lockstep.transactions.xa.XaPool;
import dev.lockstep.transactions.xa.log.GroupCommitLogFactory;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.List;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * What operators see: one health indicator per XA resource ({@code businessDb}, {@code workflowDb},
 * named after the beans) and one for the transaction manager; pool and prepared-branch gauges, JTA
 * outcome timers. XA modes only: the single-database mode has neither XA resources nor Atomikos.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnXaMode
public class OperationsConfiguration {

    @Bean(destroyMethod = "close")
    MonitoredXaPool businessXaResource(DatabaseEndpoints endpoints, @Qualifier("businessDataSource") XaPool pool) {
        return new MonitoredXaPool(endpoints.business(), pool);
    }

    @Bean(destroyMethod = "close")
    MonitoredXaPool workflowXaResource(DatabaseEndpoints endpoints, @Qualifier("workflowDataSource") XaPool pool) {
        return new MonitoredXaPool(endpoints.workflow(), pool);
    }

    @Bean
    HealthIndicator businessDbHealthIndicator(@Qualifier("businessXaResource") MonitoredXaPool resource, HealthProbes probes) {
        return probes.probed("businessDb", new XaResourceHealthIndicator(resource));
    }

    @Bean
    HealthIndicator workflowDbHealthIndicator(@Qualifier("workflowXaResource") MonitoredXaPool resource, HealthProbes probes) {
        return probes.probed("workflowDb", new XaResourceHealthIndicator(resource));
    }

    /** Depends on the started manager: before it, the indicator would only report it as down. */
    @Bean
    TransactionManagerHealthIndicator transactionManagerHealthIndicator(LockstepProperties properties,
            UserTransactionManager startedManager) {
        return new TransactionManagerHealthIndicator(properties);
    }

    @Bean
    XaResourceMetrics xaResourceMetrics(List<MonitoredXaPool> resources) {
        return new XaResourceMetrics(resources);
    }

    @Bean
    MeterBinder heuristicOutcomesAtZero() {
        return HeuristicOutcomeMetrics::registerAtZero;
    }

    /**
     * {@code lockstep_tm_log_durable_writes_total{store}}: the coordinator log's forces of its file or commits of its
     * table for decision records; per two-phase transaction it shows what group commit saves (docs/performance.md,
     * "Decision log: file against database").
     */
    @Bean
    MeterBinder coordinatorLogDurableWrites(LockstepProperties properties, UserTransactionManager startedManager) {
        return registry -> FunctionCounter.builder("lockstep.tm.log.durable.writes", GroupCommitLogFactory.class,
                        log -> GroupCommitLogFactory.durableWrites())
                .description("Forces of the coordinator log's file or commits of its table; each covers every decision queued by then")
                .tag("store", GroupCommitLogFactory.storeOf(properties)).register(registry);
    }

    /** Registered on the JTA transaction manager by {@code XaConfiguration}. */
    @Bean
    JtaTransactionMetrics jtaTransactionMetrics(MeterRegistry registry) {
        return new JtaTransactionMetrics(registry);
    }
}
