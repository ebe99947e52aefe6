package dev.lockstep.transactions.monitoring;

import dev.lockstep.platform.PostgresqlOnly;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.lockstep.platform.DatabaseSettings;
import dev.lockstep.transactions.xa.XaPool;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * One of the two XA resources as operations looks at it: its XA pool, and the database behind
 * it reached over a plain pool of its own (a check must not borrow from the XA pool it reports on,
 * nor run inside a global transaction). That pool is small and bounded: health and metrics
 * scrapes ask through it, and a connection opened per question would let callers exhaust the
 * database's {@code max_connections}.
 */
final class MonitoredXaPool implements AutoCloseable {

    /** The health probe and a metrics scrape at once. */
    static final int PLAIN_POOL_SIZE = 2;

    private final DatabaseSettings settings;
    private final XaPool pool;
    private final HikariDataSource plain;

    MonitoredXaPool(DatabaseSettings settings, XaPool pool) {
        this.settings = settings;
        this.pool = pool;
        HikariConfig config = settings.plainPool(pool.uniqueResourceName() + "-monitor", PLAIN_POOL_SIZE);
        // a question that finds both connections busy (a hung database) fails like a failed connect
        config.setConnectionTimeout(settings.connectTimeout().toMillis());
        // a database that is down is what health is there to report: no connection is needed to start
        config.setInitializationFailTimeout(-1);
        this.plain = new HikariDataSource(config);
    }

    String name() {
        return pool.uniqueResourceName();
    }

    DatabaseSettings settings() {
        return settings;
    }

    XaPool pool() {
        return pool;
    }

    /**
     * Prepared branches the database holds now. Normal for the instant between prepare and commit; a
     * count that stays up means in-doubt transactions, which hold their row locks.
     */
    @PostgresqlOnly("the switch's ORACLE arm reads sys.dba_pending_transactions")
    long preparedTransactions() throws SQLException {
        try (Connection connection = plain.getConnection(); Statement statement = connection.createStatement();
                ResultSet count = statement.executeQuery(switch (settings.vendor()) {
                    case POSTGRESQL -> "select count(*) from pg_prepared_xacts where database = current_database()";
                    // Readable by the schema user through xa-config/oracle/grants.sql.
                    case ORACLE -> "select count(*) from sys.dba_pending_transactions";
                })) {
            count.next();
            return count.getLong(1);
        }
    }

    @Override
    public void close() {
        plain.close();
    }
}
