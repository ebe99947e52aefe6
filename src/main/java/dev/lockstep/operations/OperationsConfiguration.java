package dev.lockstep.operations;

import com.atomikos.icatch.jta.UserTransactionManager;
import com.atomikos.jdbc.AtomikosDataSourceBean;
import dev.lockstep.xa.DatabaseEndpoints;
import dev.lockstep.xa.LockstepProperties;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * What operators see: one health indicator per XA resource ({@code businessDb}, {@code workflowDb},
 * named after the beans) and one for the transaction manager, pool gauges and JTA outcome timers.
 */
@Configuration(proxyBeanMethods = false)
public class OperationsConfiguration {

    @Bean
    XaResourceHealthIndicator businessDbHealthIndicator(DatabaseEndpoints endpoints,
            @Qualifier("businessDataSource") AtomikosDataSourceBean pool) {
        return new XaResourceHealthIndicator(endpoints.business(), pool);
    }

    @Bean
    XaResourceHealthIndicator workflowDbHealthIndicator(DatabaseEndpoints endpoints,
            @Qualifier("workflowDataSource") AtomikosDataSourceBean pool) {
        return new XaResourceHealthIndicator(endpoints.workflow(), pool);
    }

    /** Depends on the started manager: before it, the indicator would only report it as down. */
    @Bean
    TransactionManagerHealthIndicator transactionManagerHealthIndicator(LockstepProperties properties,
            UserTransactionManager startedManager) {
        return new TransactionManagerHealthIndicator(properties);
    }

    @Bean
    XaPoolMetrics xaPoolMetrics(List<AtomikosDataSourceBean> pools) {
        return new XaPoolMetrics(pools);
    }

    /** Registered on the JTA transaction manager by {@code XaConfiguration}. */
    @Bean
    JtaTransactionMetrics jtaTransactionMetrics(MeterRegistry registry) {
        return new JtaTransactionMetrics(registry);
    }
}
