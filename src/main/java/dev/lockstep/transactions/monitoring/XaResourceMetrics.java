package dev.lockstep.transactions.monitoring;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.sql.SQLException;
import java.util.List;

/**
 * Gauges per XA resource, tagged {@code resource="business-db"|"workflow-db"}:
 * {@code lockstep_xa_pool_size} and {@code lockstep_xa_pool_available} (available near zero with the
 * size at its maximum means requests wait for connections), and
 * {@code lockstep_xa_prepared_transactions}, counted in the database at each scrape (one that stays
 * above zero is an in-doubt transaction; NaN when the database cannot be asked).
 */
class XaResourceMetrics implements MeterBinder {

    private final List<MonitoredXaPool> resources;

    XaResourceMetrics(List<MonitoredXaPool> resources) {
        this.resources = resources;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (MonitoredXaPool resource : resources) {
            Gauge.builder("lockstep.xa.pool.size", resource, r -> r.pool().totalSize())
                    .description("Connections in the XA pool, in use or not")
                    .tag("resource", resource.name())
                    .register(registry);
            Gauge.builder("lockstep.xa.pool.available", resource, r -> r.pool().availableSize())
                    .description("Idle connections in the XA pool")
                    .tag("resource", resource.name())
                    .register(registry);
            Gauge.builder("lockstep.xa.prepared.transactions", resource, XaResourceMetrics::preparedOrNaN)
                    .description("Prepared (phase-one-done) transaction branches in the database")
                    .tag("resource", resource.name())
                    .register(registry);
        }
    }

    private static double preparedOrNaN(MonitoredXaPool resource) {
        try {
            return resource.preparedTransactions();
        } catch (SQLException e) {
            return Double.NaN;
        }
    }
}
