package dev.lockstep.catalog;

import dev.lockstep.platform.DatabaseSettings;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code lockstep.catalog.*}: the reference asset catalog. On the embedded default it runs inside the
 * service under {@code /catalog} on a database of its own ({@code lockstep_catalog} in the embedded
 * business server); elsewhere it runs where {@code lockstep.catalog.db.url} points it.
 * {@code token}, when set, is the bearer token every caller must present.
 */
@ConfigurationProperties("lockstep.catalog")
public record CatalogProperties(
        @DefaultValue("true") boolean enabled,
        String token,
        @DefaultValue("asset-catalog") String consumerName,
        DatabaseSettings db) {

    public CatalogProperties {
        db = db == null ? DatabaseSettings.unset() : db;
    }
}
