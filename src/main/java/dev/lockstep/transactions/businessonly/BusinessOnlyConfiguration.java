package dev.lockstep.transactions.businessonly;

import dev.lockstep.platform.ConditionalOnXaMode;
import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.platform.LockstepProperties;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.persistence.EntityManagerFactory;
import jakarta.transaction.TransactionManager;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.repository.core.support.TransactionalRepositoryFactoryBeanSupport;
import org.springframework.orm.jpa.LocalContainerEntityManagerFactoryBean;
import org.springframework.orm.jpa.persistenceunit.PersistenceManagedTypes;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.util.ClassUtils;

/**
 * The business-only path of the XA modes (see {@link BusinessOnlyTransactions}): the plain pool and
 * local EntityManagerFactory of the business database, the local transaction manager (no default
 * candidate for injection: nothing lands on the local path without naming it), the repositories'
 * transactions that join it, and the guard on the JTA manager.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnXaMode
public class BusinessOnlyConfiguration {

    static final String REPOSITORY_TRANSACTIONS = "repositoryTransactions";

    @Bean(destroyMethod = "close")
    BusinessOnlyPool businessOnlyPool(DatabaseEndpoints endpoints, MeterRegistry meters) {
        return new BusinessOnlyPool(endpoints.business(), meters);
    }

    @Bean
    BusinessReads businessReads(BusinessOnlyPool pool) {
        return new BusinessReads(pool.dataSource());
    }

    @Bean(destroyMethod = "close")
    BusinessOnlyDatabase businessOnlyDatabase(BusinessOnlyPool pool, LocalContainerEntityManagerFactoryBean shared,
            PersistenceManagedTypes entities) {
        return new BusinessOnlyDatabase(pool.dataSource(), shared.getJpaPropertyMap(), entities);
    }

    @Bean(name = BusinessOnlyTransactions.MANAGER, defaultCandidate = false)
    BusinessOnlyTransactionManager businessOnlyTransactionManager(EntityManagerFactory shared, BusinessOnlyDatabase database,
            BusinessOnlyPool pool, TransactionManager jta, LockstepProperties properties) {
        BusinessOnlyTransactionManager manager = new BusinessOnlyTransactionManager(shared, database.entityManagerFactory(),
                pool.dataSource(), jta);
        manager.setDefaultTimeout((int) properties.tm().defaultTimeout().toSeconds());
        return manager;
    }

    @Bean(name = REPOSITORY_TRANSACTIONS, defaultCandidate = false)
    RepositoryTransactions repositoryTransactions(PlatformTransactionManager transactionManager,
            @Qualifier(BusinessOnlyTransactions.MANAGER) PlatformTransactionManager businessOnly, BusinessOnlyPool pool) {
        return new RepositoryTransactions(transactionManager, businessOnly, pool.dataSource());
    }

    /**
     * Points every Spring Data repository's method transactions at {@link RepositoryTransactions}: set on
     * their bean definitions, since a repository factory reads its transaction manager's name as soon as
     * it is created.
     */
    @Bean
    static BeanFactoryPostProcessor repositoriesJoinBusinessOnlyTransactions() {
        return beanFactory -> {
            for (String name : beanFactory.getBeanDefinitionNames()) {
                BeanDefinition definition = beanFactory.getBeanDefinition(name);
                String type = definition.getBeanClassName();
                if (type != null && ClassUtils.isPresent(type, beanFactory.getBeanClassLoader())
                        && TransactionalRepositoryFactoryBeanSupport.class.isAssignableFrom(
                                ClassUtils.resolveClassName(type, beanFactory.getBeanClassLoader()))) {
                    definition.getPropertyValues().add("transactionManager", REPOSITORY_TRANSACTIONS);
                }
            }
        };
    }

    /** Picked up by the JTA manager with the other execution listeners (xa.XaConfiguration). */
    @Bean
    NoJtaInsideBusinessOnly noJtaInsideBusinessOnly(BusinessOnlyPool pool) {
        return new NoJtaInsideBusinessOnly(pool.dataSource());
    }
}
