package dev.lockstep.publishing.outbox;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.lockstep.platform.ConditionalOnXaMode;
import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.platform.DatabaseSettings;
import dev.lockstep.platform.LockstepProperties;
import dev.lockstep.platform.health.HealthProbes;
import dev.lockstep.publishing.catalog.CatalogConfiguration;
import dev.lockstep.publishing.catalog.CatalogCredential;
import dev.lockstep.publishing.delivery.CatalogClient;
import dev.lockstep.publishing.delivery.RemoteCallOutsideTransaction;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.time.Clock;
import java.util.function.Supplier;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The publisher side of publishing. XA modes only (the single-database mode writes events but runs no
 * publisher yet, see docs/publishing.md). Its pool is plain HikariCP on the business database, apart
 * from the XA pool: claims and marks are local transactions of one database.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnXaMode
@EnableConfigurationProperties(PublishProperties.class)
public class PublishConfiguration {

    @Bean(destroyMethod = "close")
    OutboxStore outboxStore(DatabaseEndpoints endpoints, PublishProperties properties) {
        properties.verify();
        DatabaseSettings business = endpoints.business();
        HikariConfig config = new HikariConfig();
        config.setPoolName("publish-business");
        config.setJdbcUrl(business.url());
        config.setUsername(business.username());
        config.setPassword(business.password());
        config.setMaximumPoolSize(4);
        config.setMinimumIdle(1);
        // a poll that cannot get a connection fails fast and the next poll tries again
        config.setConnectionTimeout(2_000);
        return new OutboxStore(new HikariDataSource(config), OutboxDialect.of(business.vendor()));
    }

    @Bean
    CatalogTarget catalogTarget(PublishProperties properties, ObjectProvider<CatalogConfiguration> inProcessCatalog,
            Environment environment) {
        if (properties.catalogUrl() != null) {
            return new CatalogTarget(properties.catalogUrl().toString(), properties::catalogUrl);
        }
        if (inProcessCatalog.getIfAvailable() != null) {
            // the reference catalog in this process, still over HTTP; the port is known once the server is up
            Supplier<URI> local = () -> URI.create("http://localhost:" + environment.getRequiredProperty("local.server.port")
                    + "/catalog");
            return new CatalogTarget("the reference catalog in this process (/catalog)", local);
        }
        return new CatalogTarget(null, null);
    }

    /**
     * The catalog as the publisher sees it; reconciliation asks it the same way. Its token is {@code catalog-token}, or,
     * for the catalog in this process, that catalog's own credential (generated on the embedded default).
     */
    @Bean
    CatalogClient catalogClient(CatalogTarget target, PublishProperties properties, ObjectProvider<CatalogCredential> inProcessCatalog,
            RemoteCallOutsideTransaction outsideTransaction) {
        String token = properties.catalogToken();
        CatalogCredential local = inProcessCatalog.getIfAvailable();
        if ((token == null || token.isBlank()) && properties.catalogUrl() == null && local != null) {
            token = local.token();
        }
        return new CatalogClient(target.url(), token, properties.connectTimeout(), properties.readTimeout(), outsideTransaction);
    }

    @Bean
    OutboxPublisher outboxPublisher(OutboxStore store, CatalogClient client, PublishProperties properties,
            LockstepProperties lockstep, ObjectProvider<Clock> clock, MeterRegistry meters) {
        return new OutboxPublisher(store, client, properties, lockstep.tm().uniqueName(), clock.getIfAvailable(Clock::systemUTC),
                meters);
    }

    @Bean(destroyMethod = "close")
    PublishLoop publishLoop(OutboxPublisher publisher, CatalogTarget target, PublishProperties properties) {
        return new PublishLoop(publisher, target, properties);
    }

    @Bean
    OutboxMonitor outboxMonitor(OutboxStore store, PublishProperties properties, ObjectProvider<Clock> clock,
            MeterRegistry meters) {
        return new OutboxMonitor(store, properties.stuckAfter(), clock.getIfAvailable(Clock::systemUTC), meters);
    }

    /** Probed: a hung outbox read would otherwise hold every health request on the monitor's lock. */
    @Bean
    HealthIndicator outboxHealthIndicator(OutboxMonitor monitor, HealthProbes probes) {
        return probes.probed("outbox", new OutboxHealthIndicator(monitor));
    }

    @Bean
    OutboxOperations outboxOperations(OutboxStore store, ObjectProvider<Clock> clock) {
        return new OutboxOperations(store, clock.getIfAvailable(Clock::systemUTC));
    }

    /** Where events go: {@code description} for the logs, {@code url} null when nowhere is configured. */
    record CatalogTarget(String description, Supplier<URI> url) {

        boolean known() {
            return url != null;
        }
    }
}
