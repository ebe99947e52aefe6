package dev.lockstep.platform;

import org.springframework.boot.hibernate.autoconfigure.HibernatePropertiesCustomizer;
import org.springframework.stereotype.Component;

/**
 * Names the business database's product from the configured vendor, so Hibernate picks its dialect without reading
 * JDBC metadata at boot (the strict XA pool refuses connections outside a JTA transaction). Naming a built-in dialect
 * class ({@code hibernate.dialect}) instead is deprecated since Hibernate 7 (HHH90000025).
 */
@Component
class BusinessJpaDialect implements HibernatePropertiesCustomizer {

    private final DatabaseEndpoints endpoints;

    BusinessJpaDialect(DatabaseEndpoints endpoints) {
        this.endpoints = endpoints;
    }

    @Override
    public void customize(java.util.Map<String, Object> properties) {
        properties.put("jakarta.persistence.database-product-name", switch (endpoints.business().vendor()) {
            case POSTGRESQL -> "PostgreSQL";
            case ORACLE -> "Oracle";
        });
    }
}
