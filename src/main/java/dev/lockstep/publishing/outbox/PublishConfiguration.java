package dev.lockstep.publishing.outbox;

import com.github.kagkarlsson.scheduler.task.helper.RecurringTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.github.kagkarlsson.scheduler.task.schedule.FixedDelay;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.lockstep.platform.ConditionalOnXaMode;
import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.platform.LockstepProperties;
import dev.lockstep.platform.audit.AuditTrail;
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
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.beans.factory.annotation.Qualifier;
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
@EnableConfigurationProperties({PublishProperties.class, OutboxRetentionProperties.class})
public class PublishConfiguration {

    static final String RETENTION_JOB = "outbox-retention";

    /**
     * Claims, marks and operators' repairs: the business database's four timeouts bound every wait, so an in-doubt
     * transaction holding an event's or an application's row, or a server that stops answering, costs one poll or one
     * repair a lock or socket timeout, never the single publisher thread.
     */
    @Bean(destroyMethod = "close")
    HikariDataSource publishDataSource(DatabaseEndpoints endpoints) {
        HikariConfig config = endpoints.business().plainPool("publish-business", 4);
        config.setMinimumIdle(1);
        // a poll that cannot get a connection fails fast and the next poll tries again
        config.setConnectionTimeout(2_000);
        return new HikariDataSource(config);
    }

    @Bean
    OutboxStore outboxStore(@Qualifier("publishDataSource") HikariDataSource pool, DatabaseEndpoints endpoints,
            PublishProperties properties, ObjectProvider<AuditTrail> audit) {
        properties.verify();
        return new OutboxStore(pool, OutboxDialect.of(endpoints.business().vendor()), AuditTrail.clockSourceOf(audit.getIfAvailable()));
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

    @Bean
    OutboxRetention outboxRetention(OutboxStore store, OutboxRetentionProperties properties, ObjectProvider<Clock> clock,
            MeterRegistry meters) {
        properties.verify();
        return new OutboxRetention(store, properties, clock.getIfAvailable(Clock::systemUTC), meters);
    }

    @Bean
    @ConditionalOnBooleanProperty(name = "lockstep.outbox.retention.enabled", matchIfMissing = true)
    RecurringTask<Void> outboxRetentionJob(OutboxRetention retention, OutboxRetentionProperties properties) {
        return Tasks.recurring(RETENTION_JOB, FixedDelay.of(properties.interval())).execute((instance, context) -> retention.purge());
    }

    /** Where events go: {@code description} for the logs, {@code url} null when nowhere is configured. */
    record CatalogTarget(String description, Supplier<URI> url) {

        boolean known() {
            return url != null;
        }
    }
}
