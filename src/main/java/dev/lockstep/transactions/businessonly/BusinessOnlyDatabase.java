package dev.lockstep.transactions.businessonly;

import jakarta.persistence.EntityManagerFactory;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.orm.jpa.LocalContainerEntityManagerFactoryBean;
import org.springframework.orm.jpa.persistenceunit.PersistenceManagedTypes;
import org.springframework.orm.jpa.vendor.HibernateJpaVendorAdapter;

/**
 * A resource-local EntityManagerFactory of the business database over the same entities as the shared
 * (JTA) one, with its Hibernate settings less those that make it a JTA one. Not a bean, so that nothing
 * finds it by type: only {@link BusinessOnlyTransactionManager} uses it.
 */
final class BusinessOnlyDatabase implements AutoCloseable {

    /** Settings of the shared factory that make it a JTA one; the local factory takes the resource-local defaults instead. */
    private static final String[] JTA_SETTINGS = {"hibernate.transaction.jta.platform", "hibernate.connection.handling_mode",
            "hibernate.transaction.coordinator_class", "jakarta.persistence.transactionType", "jakarta.persistence.jtaDataSource"};

    private final LocalContainerEntityManagerFactoryBean factory = new LocalContainerEntityManagerFactoryBean();

    BusinessOnlyDatabase(DataSource pool, Map<String, Object> sharedSettings, PersistenceManagedTypes entities) {
        Map<String, Object> settings = new HashMap<>(sharedSettings);
        for (String jta : JTA_SETTINGS) {
            settings.remove(jta);
        }
        factory.setPersistenceUnitName("business-only");
        factory.setDataSource(pool);
        factory.setManagedTypes(entities);
        factory.setJpaVendorAdapter(new HibernateJpaVendorAdapter());
        factory.setJpaPropertyMap(settings);
        factory.afterPropertiesSet();
    }

    EntityManagerFactory entityManagerFactory() {
        return factory.getObject();
    }

    @Override
    public void close() {
        factory.destroy();
    }
}
