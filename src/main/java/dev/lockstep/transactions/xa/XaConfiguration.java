package dev.lockstep.transactions.xa;

import com.atomikos.icatch.config.UserTransactionServiceImp;
import com.atomikos.icatch.jta.UserTransactionManager;
import dev.lockstep.platform.ConditionalOnXaMode;
import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.platform.DatabaseSettings;
import dev.lockstep.platform.DatabaseVendor;
import dev.lockstep.platform.EmbeddedPostgresServers;
import dev.lockstep.platform.LockstepProperties;
import jakarta.persistence.EntityManagerFactory;
import jakarta.servlet.DispatcherType;
import java.util.List;
import javax.sql.DataSource;
import org.hibernate.cfg.AvailableSettings;
import org.hibernate.resource.jdbc.spi.PhysicalConnectionHandlingMode;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.flyway.autoconfigure.FlywayConfigurationCustomizer;
import org.springframework.boot.flyway.autoconfigure.FlywayDataSource;
import org.springframework.boot.hibernate.autoconfigure.HibernatePropertiesCustomizer;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.DependsOn;
import org.springframework.context.annotation.Primary;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;
import org.springframework.transaction.TransactionExecutionListener;
import org.springframework.transaction.jta.JtaTransactionManager;

/**
 * The two XA resources and the one JTA transaction manager that commits them together. Order
 * matters: databases are resolved and checked first, then Atomikos starts (and runs recovery), then
 * the pools are handed to JPA and the engine.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnXaMode
@EnableConfigurationProperties(LockstepProperties.class)
public class XaConfiguration {

    static final String ORACLE_BUSINESS_MIGRATIONS = "classpath:db/business-oracle";

    @Bean(destroyMethod = "close")
    @ConditionalOnProperty(name = "lockstep.mode", havingValue = "embedded", matchIfMissing = true)
    EmbeddedPostgresServers embeddedPostgresServers(LockstepProperties properties) {
        return new EmbeddedPostgresServers(properties);
    }

    /** LOCAL (the chaos suite's negative control) is refused here, before any pool exists, outside the chaos profile. */
    @Bean
    XaDataSourceFactory xaDataSourceFactory(LockstepProperties properties, Environment environment) {
        LocalCommitNegativeControl.verify(properties, environment);
        return new XaDataSourceFactory(properties.tm().transactionMode());
    }

    /**
     * The servers come in as a (nullable) dependency, not through an {@code ObjectProvider}, which records none:
     * Spring then destroys every bean built on the endpoints (pools, the name lease) before it stops the servers.
     */
    @Bean
    DatabaseEndpoints databaseEndpoints(LockstepProperties properties, @Nullable EmbeddedPostgresServers servers,
            XaDataSourceFactory factory) {
        TransactionManagerName.validate(properties.tm().uniqueName());
        CoordinatorLogLocation.verify(properties);
        DatabaseEndpoints endpoints = servers != null
                ? servers.endpoints()
                : new DatabaseEndpoints(properties.db().business(), properties.db().workflow());
        XaStartupChecks.verify(endpoints, factory);
        return endpoints;
    }

    /**
     * Starts after both pools exist: each recovery pass replays logged commit decisions only to the
     * resources registered at that moment and then forgets them, so a resource registered later
     * would have its branch presumed aborted while its sibling committed. It also waits for this node's
     * lease on its name and the orphan rollback ({@link BeforeRecovery}): {@code doneFirst} is asked for
     * only so that Spring creates them before Atomikos.
     */
    @Bean(initMethod = "init", destroyMethod = "shutdownForce")
    @DependsOn({"businessDataSource", "workflowDataSource"})
    UserTransactionServiceImp atomikosTransactionService(LockstepProperties properties, List<BeforeRecovery> doneFirst) {
        return new UserTransactionServiceImp(AtomikosSettings.of(properties));
    }

    /**
     * Created once the transaction service has started (its init ran). First it checks that Atomikos runs the
     * transaction service {@link ParallelCommitAssembler} built (it takes the first assembler on the class path),
     * then {@code rightAfterStart} runs.
     */
    @Bean(initMethod = "init", destroyMethod = "close")
    UserTransactionManager atomikosTransactionManager(UserTransactionServiceImp transactionService,
            List<AfterTransactionServiceStart> rightAfterStart) {
        ParallelCommitAssembler.requireParallelCommit();
        rightAfterStart.forEach(AfterTransactionServiceStart::transactionServiceStarted);
        UserTransactionManager manager = new UserTransactionManager();
        manager.setStartupTransactionService(false);
        manager.setForceShutdown(false);
        return manager;
    }

    /** Listeners (metrics) observe every begin, commit and rollback; Boot only adds them to managers it builds. */
    @Bean
    JtaTransactionManager transactionManager(UserTransactionManager atomikos, LockstepProperties properties,
            ObjectProvider<TransactionExecutionListener> listeners) {
        JtaTransactionManager manager = new JtaTransactionManager(atomikos, atomikos);
        manager.setDefaultTimeout((int) properties.tm().defaultTimeout().toSeconds());
        manager.setTransactionExecutionListeners(listeners.orderedStream().toList());
        return manager;
    }

    /**
     * Counts the transactions the JTA manager runs and the requests being answered, so that a stop waits for them (at
     * most the transaction timeout).
     */
    @Bean
    TransactionDrain transactionDrain(RequestsInFlight requests, LockstepProperties properties) {
        return new TransactionDrain(requests, properties.tm().defaultTimeout());
    }

    @Bean
    RequestsInFlight requestsInFlight() {
        return new RequestsInFlight();
    }

    /** Outermost, around every filter and every dispatch, so a request counts until its answer is written. */
    @Bean
    FilterRegistrationBean<RequestsInFlight> requestsInFlightFilter(RequestsInFlight requests) {
        FilterRegistrationBean<RequestsInFlight> registration = new FilterRegistrationBean<>(requests);
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
        registration.setDispatcherTypes(DispatcherType.REQUEST, DispatcherType.ASYNC, DispatcherType.ERROR);
        return registration;
    }

    /**
     * Under JTA, Hibernate's default gives the connection back to the pool after every statement and
     * borrows it again for the next. Holding it until the transaction is about to complete, as Hibernate
     * does in a local transaction, leaves one borrow per transaction (docs/performance.md).
     */
    @Bean
    HibernatePropertiesCustomizer holdTheConnectionUntilTheTransactionCompletes() {
        return settings -> settings.put(AvailableSettings.CONNECTION_HANDLING,
                PhysicalConnectionHandlingMode.DELAYED_ACQUISITION_AND_RELEASE_BEFORE_TRANSACTION_COMPLETION);
    }

    /** The XA wiring the chaos suite proves needs Hibernate inside the JTA transaction: checked, not assumed. */
    @Bean
    HibernateJoinsJta hibernateJoinsJta(EntityManagerFactory entityManagerFactory, UserTransactionManager atomikos) {
        return new HibernateJoinsJta(entityManagerFactory, atomikos);
    }

    @Bean(destroyMethod = "close")
    @Primary
    XaPool businessDataSource(DatabaseEndpoints endpoints, XaDataSourceFactory factory) {
        return factory.pool(DatabaseEndpoints.BUSINESS_RESOURCE, "lockstep.db.business", endpoints.business());
    }

    @Bean(destroyMethod = "close")
    XaPool workflowDataSource(DatabaseEndpoints endpoints, XaDataSourceFactory factory) {
        return factory.pool(DatabaseEndpoints.WORKFLOW_RESOURCE, "lockstep.db.workflow", endpoints.workflow());
    }

    /** Schema migrations are not business transactions: Flyway gets a plain connection of its own. */
    @Bean
    @FlywayDataSource
    DataSource businessMigrationDataSource(DatabaseEndpoints endpoints) {
        return endpoints.business().schemaDataSource();
    }

    /**
     * Oracle gets its own migrations (types, partial index, reserved words differ): db/business-oracle
     * mirrors db/business file by file, chosen by the business database's vendor.
     */
    @Bean
    FlywayConfigurationCustomizer businessMigrationsForVendor(DatabaseEndpoints endpoints) {
        return configuration -> {
            if (endpoints.business().vendor() == DatabaseVendor.ORACLE) {
                configuration.locations(ORACLE_BUSINESS_MIGRATIONS);
            }
        };
    }

}
