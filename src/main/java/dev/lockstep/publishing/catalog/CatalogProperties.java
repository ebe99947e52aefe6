package dev.lockstep.publishing.catalog;

import dev.lockstep.platform.DatabaseSettings;
import dev.lockstep.platform.StartupCheckFailure;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code lockstep.catalog.*}: the reference asset catalog. On the embedded default it runs inside the
 * service under {@code /catalog} on a database of its own ({@code lockstep_catalog} in the embedded
 * business server); elsewhere it runs where {@code lockstep.catalog.db.url} points it.
 * {@code token} is the bearer token every caller must present ({@link CatalogCredential}: required unless the catalog
 * runs on the embedded default, which generates one). {@code answerDelay} is for
 * fault injection only (off by default): each create is answered that long after it committed, so a
 * publisher with a shorter read timeout sees a catalog that timed out but did publish (docs/publishing.md).
 */
@ConfigurationProperties("lockstep.catalog")
public record CatalogProperties(
        @DefaultValue("true") boolean enabled,
        String token,
        @DefaultValue("asset-catalog") String consumerName,
        DatabaseSettings db,
        @DefaultValue("0s") Duration answerDelay) {

    public CatalogProperties {
        db = db == null ? DatabaseSettings.unset() : db;
    }

    /** Refuses a setting the catalog cannot work with, naming it and the fix. */
    void verify() {
        if (answerDelay.isNegative()) {
            throw new StartupCheckFailure("lockstep.catalog.answer-delay", "is negative (" + answerDelay + ").",
                    "leave it unset (0s, off): it only exists to make the catalog slow on purpose in fault-injection tests.");
        }
    }
}
