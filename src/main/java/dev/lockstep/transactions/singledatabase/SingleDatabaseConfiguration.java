package dev.lockstep.transactions.singledatabase;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.platform.LockstepProperties;
import dev.lockstep.transactions.businessonly.BusinessOnlyTransactions;
import dev.lockstep.transactions.businessonly.BusinessReads;
import jakarta.persistence.EntityManagerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.flyway.autoconfigure.FlywayConfigurationCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.orm.jpa.JpaTransactionManager;

/**
 * The single-database deployment ({@code lockstep.mode=single}): business tables and ACT_* tables in
 * one database, one connection pool, one local {@link JpaTransactionManager}, no Atomikos. The pool
 * answers to both names the XA mode uses, so JPA and the engine get the same DataSource, and the
 * manager is called {@code transactionManager}, so the engine and every use case run on the same
 * connection in one local transaction (seed 000, section 5).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "lockstep.mode", havingValue = "single")
@EnableConfigurationProperties(LockstepProperties.class)
public class SingleDatabaseConfiguration {

    @Bean(destroyMethod = "close")
    SingleDatabase singleDatabase(LockstepProperties properties) {
        return new SingleDatabase(properties);
    }

    /** Business and workflow data resolve to the same database; readers of the endpoints need no mode switch. */
    @Bean
    DatabaseEndpoints databaseEndpoints(SingleDatabase database) {
        return new DatabaseEndpoints(database.settings(), database.settings());
    }

    @Bean(name = {"dataSource", "businessDataSource", "workflowDataSource"}, destroyMethod = "close")
    @Primary
    HikariDataSource dataSource(SingleDatabase database) {
        HikariConfig config = database.settings().plainPool("lockstep-single", database.settings().poolSize());
        // the service's only pool: keeps all its connections open, as HikariCP does by default
        config.setMinimumIdle(database.settings().poolSize());
        return new HikariDataSource(config);
    }

    /** Also the business-only manager: with one database every transaction is local already. */
    @Bean(name = {"transactionManager", BusinessOnlyTransactions.MANAGER})
    JpaTransactionManager transactionManager(EntityManagerFactory entityManagerFactory) {
        return new JpaTransactionManager(entityManagerFactory);
    }

    /** One-statement reads on the one pool, outside any transaction, as on the business-only pool in the XA modes. */
    @Bean
    BusinessReads businessReads(HikariDataSource dataSource) {
        return new BusinessReads(dataSource);
    }

    /**
     * The engine may create its ACT_* tables in the shared schema before Flyway first runs; a
     * baseline at version 0 lets Flyway then apply V1 onwards instead of refusing a non-empty schema.
     */
    @Bean
    FlywayConfigurationCustomizer sharedSchemaBaseline() {
        return flyway -> flyway.baselineOnMigrate(true).baselineVersion("0");
    }
}
