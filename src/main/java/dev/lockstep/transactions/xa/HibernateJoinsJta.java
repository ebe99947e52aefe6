package dev.lockstep.transactions.xa;

import dev.lockstep.platform.StartupCheckFailure;
import jakarta.persistence.EntityManagerFactory;
import jakarta.transaction.TransactionManager;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.engine.transaction.jta.platform.spi.JtaPlatform;
import org.hibernate.resource.transaction.spi.TransactionCoordinatorBuilder;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Refuses to start unless Hibernate runs its sessions in the one JTA transaction manager that commits both
 * databases. With any other platform (a local JDBC transaction, or a JTA platform that finds another manager)
 * the business writes would commit on their own, outside the two-phase commit the chaos suite proves, and nothing
 * else would notice: every request would still answer 200.
 */
final class HibernateJoinsJta implements SmartInitializingSingleton {

    static final String JTA_PLATFORM_SETTING = "spring.jpa.properties.hibernate.transaction.jta.platform";

    private final EntityManagerFactory entityManagerFactory;
    private final TransactionManager transactionManager;

    HibernateJoinsJta(EntityManagerFactory entityManagerFactory, TransactionManager transactionManager) {
        this.entityManagerFactory = entityManagerFactory;
        this.transactionManager = transactionManager;
    }

    @Override
    public void afterSingletonsInstantiated() {
        verify(entityManagerFactory, transactionManager);
    }

    static void verify(EntityManagerFactory entityManagerFactory, TransactionManager transactionManager) {
        var services = entityManagerFactory.unwrap(SessionFactoryImplementor.class).getServiceRegistry();
        JtaPlatform platform = services.requireService(JtaPlatform.class);
        boolean jtaCoordinator = services.requireService(TransactionCoordinatorBuilder.class).isJta();
        if (!jtaCoordinator || platform.retrieveTransactionManager() != transactionManager) {
            throw new StartupCheckFailure(JTA_PLATFORM_SETTING, "Hibernate runs with " + platform.getClass().getName()
                    + (jtaCoordinator ? "" : " and local JDBC transactions")
                    + ", not in the JTA transaction manager that commits both databases together.",
                    "remove every spring.jpa.properties.hibernate.transaction.* setting"
                            + " from the configuration: Lockstep joins Hibernate to its Atomikos transaction manager itself.");
        }
    }
}
