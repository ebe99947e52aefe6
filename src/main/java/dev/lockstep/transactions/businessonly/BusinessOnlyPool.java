package dev.lockstep.transactions.businessonly;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.metrics.micrometer.MicrometerMetricsTrackerFactory;
import dev.lockstep.platform.DatabaseSettings;
import io.micrometer.core.instrument.MeterRegistry;
import javax.sql.DataSource;

/**
 * A plain HikariCP pool of the business database (no XA, no coordinator), with the same timeouts as the
 * XA pool. Held here rather than as a DataSource bean, so that nothing finds it by type.
 */
final class BusinessOnlyPool implements AutoCloseable {

    private final HikariDataSource pool;

    BusinessOnlyPool(DatabaseSettings business, MeterRegistry meters) {
        HikariConfig config = business.plainPool("business-only", business.poolSize());
        config.setMinimumIdle(1);
        // as long as a borrow from the XA pools may wait; then 503 DATABASE_BUSY
        config.setConnectionTimeout(10_000);
        config.setMetricsTrackerFactory(new MicrometerMetricsTrackerFactory(meters));
        this.pool = new HikariDataSource(config);
    }

    DataSource dataSource() {
        return pool;
    }

    @Override
    public void close() {
        pool.close();
    }
}
