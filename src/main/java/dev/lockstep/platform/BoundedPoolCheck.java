package dev.lockstep.platform;

import com.zaxxer.hikari.HikariDataSource;
import java.util.Map;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.stereotype.Component;

/**
 * Refuses to start with a connection pool whose connections could wait forever. A pool built without the database's
 * lock, statement, socket and connect timeouts lets one prepared transaction holding a row, or one server that stops
 * answering, hold every thread that borrows from it — the publisher's single thread and the cluster scheduler's did
 * (issue 29). Every pool bean is read once all are built; the failure names the setting its connections do not carry.
 */
@Component
class BoundedPoolCheck implements SmartInitializingSingleton {

    private final ListableBeanFactory beans;
    private final ObjectProvider<DatabaseEndpoints> endpoints;

    BoundedPoolCheck(ListableBeanFactory beans, ObjectProvider<DatabaseEndpoints> endpoints) {
        this.beans = beans;
        this.endpoints = endpoints;
    }

    @Override
    public void afterSingletonsInstantiated() {
        verify(beans.getBeansOfType(HikariDataSource.class), endpoints.getIfAvailable());
    }

    static void verify(Map<String, HikariDataSource> pools, DatabaseEndpoints endpoints) {
        pools.forEach((bean, pool) -> DatabaseSettings.missingBound(pool.getJdbcUrl(), pool.getDataSourceProperties())
                .ifPresent(bound -> {
                    String setting = prefixOf(pool.getJdbcUrl(), endpoints) + "." + bound;
                    throw new StartupCheckFailure(setting, "is not applied to the connection pool '" + pool.getPoolName()
                            + "' (bean " + bean + ", " + pool.getJdbcUrl() + "): a stuck transaction or a silent server would"
                            + " hold its threads forever.", "build the pool with DatabaseSettings.plainPool, which carries all"
                            + " four timeouts, and add to its driver properties rather than replace them.");
                }));
    }

    /** The settings the pool's database is configured by, or the pattern of their names if it is none of the two. */
    private static String prefixOf(String url, DatabaseEndpoints endpoints) {
        if (endpoints == null || url == null) {
            return "lockstep.db.<db>";
        }
        boolean business = url.equals(endpoints.business().url());
        boolean workflow = url.equals(endpoints.workflow().url());
        return business && workflow ? "lockstep.db.single"
                : business ? "lockstep.db.business"
                : workflow ? "lockstep.db.workflow"
                : "lockstep.db.<db>";
    }
}
