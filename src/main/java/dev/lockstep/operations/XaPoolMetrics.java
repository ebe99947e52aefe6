package dev.lockstep.operations;

import com.atomikos.jdbc.AtomikosDataSourceBean;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.List;

/**
 * Size and free connections of each Atomikos XA pool, tagged with the resource name
 * ({@code lockstep_xa_pool_size{resource="business-db"}}, {@code lockstep_xa_pool_available{...}}).
 * Available near zero with size at the maximum means requests wait for connections.
 */
class XaPoolMetrics implements MeterBinder {

    private final List<AtomikosDataSourceBean> pools;

    XaPoolMetrics(List<AtomikosDataSourceBean> pools) {
        this.pools = pools;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (AtomikosDataSourceBean pool : pools) {
            Gauge.builder("lockstep.xa.pool.size", pool, AtomikosDataSourceBean::poolTotalSize)
                    .description("Connections in the XA pool, in use or not")
                    .tag("resource", pool.getUniqueResourceName())
                    .register(registry);
            Gauge.builder("lockstep.xa.pool.available", pool, AtomikosDataSourceBean::poolAvailableSize)
                    .description("Idle connections in the XA pool")
                    .tag("resource", pool.getUniqueResourceName())
                    .register(registry);
        }
    }
}
