package dev.lockstep.publishing.catalog;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.lockstep.platform.DatabaseSettings;
import dev.lockstep.platform.DatabaseVendor;
import dev.lockstep.platform.EmbeddedPostgresServers;
import dev.lockstep.platform.StartupCheckFailure;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import org.flywaydb.core.Flyway;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configurers.AbstractHttpConfigurer;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.web.SecurityFilterChain;

/**
 * Runs the reference catalog: inside the service on the embedded default (its own database in the
 * embedded business server), or wherever {@code lockstep.catalog.db.url} is set — also as a process of
 * its own ({@link CatalogApplication}). The service never reads this database: it calls {@code /catalog}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnCatalog
@EnableConfigurationProperties(CatalogProperties.class)
public class CatalogConfiguration {

    static final String DATABASE = "lockstep_catalog";

    /** The servers as a (nullable) dependency, so that the catalog's pool closes before they stop. */
    @Bean(destroyMethod = "close")
    CatalogStore catalogStore(CatalogProperties properties, @Nullable EmbeddedPostgresServers embedded,
            ObjectProvider<Clock> clock, MeterRegistry meters) {
        properties.verify();
        DatabaseSettings settings = database(properties, embedded);
        settings.validateTimeouts("lockstep.catalog.db");
        // the catalog's requests wait for its database no longer than the service's wait for theirs
        HikariConfig config = settings.plainPool("catalog", settings.poolSize());
        config.setConnectionTimeout(5_000);
        HikariDataSource pool;
        try {
            pool = new HikariDataSource(config);
        } catch (RuntimeException e) {
            throw new StartupCheckFailure("lockstep.catalog.db.url", "cannot reach the catalog database " + settings.url()
                    + " (" + e.getMessage() + ").", "point lockstep.catalog.db.url, .username and .password at the catalog's"
                    + " own database (never the business or workflow one), or set lockstep.catalog.enabled=false.");
        }
        Flyway.configure()
                .dataSource(pool)
                .locations(settings.vendor() == DatabaseVendor.ORACLE ? "classpath:db/catalog-oracle" : "classpath:db/catalog")
                .load()
                .migrate();
        return new CatalogStore(pool, properties.consumerName(), clock.getIfAvailable(Clock::systemUTC), meters);
    }

    private static DatabaseSettings database(CatalogProperties properties, EmbeddedPostgresServers embedded) {
        if (properties.db().isConfigured()) {
            return properties.db();
        }
        if (embedded == null) {
            throw new StartupCheckFailure("lockstep.catalog.db.url", "is not set and no embedded database server runs here.",
                    "set lockstep.catalog.db.url (and .username, .password) to the catalog's own database.");
        }
        return embedded.separateDatabase(DATABASE);
    }

    /** Generated only on the embedded default inside the service; anywhere else {@code lockstep.catalog.token} is required. */
    @Bean
    CatalogCredential catalogCredential(CatalogProperties properties, Environment environment) {
        boolean embeddedDefault = !environment.getProperty("lockstep.catalog.standalone", Boolean.class, false)
                && "embedded".equalsIgnoreCase(environment.getProperty("lockstep.mode", "embedded"));
        return CatalogCredential.of(properties.token(), embeddedDefault);
    }

    /**
     * The catalog is another system that happens to share the port: the service's users and roles do
     * not apply to it; it checks its own bearer token ({@link CatalogCredential}).
     */
    @Bean
    @Order(1)
    SecurityFilterChain catalogFilterChain(HttpSecurity http) {
        return http.securityMatcher("/catalog/**")
                .csrf(AbstractHttpConfigurer::disable)
                .sessionManagement(session -> session.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
                .authorizeHttpRequests(requests -> requests.anyRequest().permitAll())
                .build();
    }
}
