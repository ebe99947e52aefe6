package dev.lockstep.platform;

import org.springframework.boot.hibernate.autoconfigure.HibernatePropertiesCustomizer;
import org.springframework.stereotype.Component;

/**
 * Names the Hibernate dialect from the configured vendor: Hibernate is told not to read JDBC
 * metadata at boot, because the strict XA pool refuses connections outside a JTA transaction.
 */
@Component
class BusinessJpaDialect implements HibernatePropertiesCustomizer {

    private final DatabaseEndpoints endpoints;

    BusinessJpaDialect(DatabaseEndpoints endpoints) {
        this.endpoints = endpoints;
    }

    @Override
    public void customize(java.util.Map<String, Object> properties) {
        properties.put("hibernate.dialect", switch (endpoints.business().vendor()) {
            case POSTGRESQL -> "org.hibernate.dialect.PostgreSQLDialect";
            case ORACLE -> "org.hibernate.dialect.OracleDialect";
        });
    }
}
