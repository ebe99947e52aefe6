package dev.lockstep.transactions.monitoring;

import dev.lockstep.platform.DatabaseSettings;
import dev.lockstep.transactions.xa.XaPool;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * One of the two XA resources as operations looks at it: its XA pool, and the database behind
 * it reached over a plain connection of its own (a check must not borrow from the XA pool it
 * reports on, nor run inside a global transaction).
 */
final class MonitoredXaPool {

    private final DatabaseSettings settings;
    private final XaPool pool;
    private final DataSource plain;

    MonitoredXaPool(DatabaseSettings settings, XaPool pool) {
        this.settings = settings;
        this.pool = pool;
        this.plain = settings.plainDataSource();
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
}
