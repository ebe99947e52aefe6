package dev.lockstep.transactions.xa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.atomikos.icatch.jta.UserTransactionManager;
import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.platform.StartupCheckFailure;
import dev.lockstep.support.LockstepIntegrationTest;
import jakarta.persistence.EntityManagerFactory;
import java.util.Map;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.engine.transaction.jta.platform.spi.JtaPlatform;
import org.hibernate.resource.transaction.spi.TransactionCoordinatorBuilder;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.orm.jpa.LocalContainerEntityManagerFactoryBean;
import org.springframework.orm.jpa.persistenceunit.PersistenceManagedTypes;
import org.springframework.orm.jpa.vendor.HibernateJpaVendorAdapter;

/**
 * The XA wiring the chaos suite proves: Hibernate's sessions run in the one Atomikos transaction manager. The running
 * service is checked directly, and the startup check is shown to refuse a factory that is not joined to it.
 */
@LockstepIntegrationTest
class HibernateJoinsJtaTest {

    @Autowired EntityManagerFactory entityManagerFactory;
    @Autowired UserTransactionManager atomikos;
    @Autowired DatabaseEndpoints endpoints;

    @Test
    void theServicesHibernateRunsInTheAtomikosTransactionManager() {
        var services = entityManagerFactory.unwrap(SessionFactoryImplementor.class).getServiceRegistry();

        assertThat(services.requireService(TransactionCoordinatorBuilder.class).isJta()).as("JTA transaction coordinator").isTrue();
        assertThat(services.requireService(JtaPlatform.class).retrieveTransactionManager()).isSameAs(atomikos);
    }

    @Test
    void aFactoryWithLocalTransactionsIsRefused() {
        LocalContainerEntityManagerFactoryBean local = new LocalContainerEntityManagerFactoryBean();
        local.setPersistenceUnitName("local-transactions");
        local.setDataSource(endpoints.business().plainDataSource());
        local.setManagedTypes(PersistenceManagedTypes.of());
        local.setJpaVendorAdapter(new HibernateJpaVendorAdapter());
        local.setJpaPropertyMap(Map.of("hibernate.boot.allow_jdbc_metadata_access", false,
                "jakarta.persistence.database-product-name", "PostgreSQL"));
        local.afterPropertiesSet();
        try {
            StartupCheckFailure failure = catchThrowableOfType(StartupCheckFailure.class,
                    () -> HibernateJoinsJta.verify(local.getObject(), atomikos));

            assertThat(failure.setting()).isEqualTo(HibernateJoinsJta.JTA_PLATFORM_SETTING);
            assertThat(failure).hasMessageContaining("and local JDBC transactions")
                    .hasMessageContaining("Fix: remove every spring.jpa.properties.hibernate.transaction.* setting");
        } finally {
            local.destroy();
        }
    }

    @Test
    void aFactoryJoinedToAnotherTransactionManagerIsRefused() {
        StartupCheckFailure failure = catchThrowableOfType(StartupCheckFailure.class,
                () -> HibernateJoinsJta.verify(entityManagerFactory, new UserTransactionManager()));

        assertThat(failure).hasMessageContaining("not in the JTA transaction manager that commits both databases together");
    }
}
