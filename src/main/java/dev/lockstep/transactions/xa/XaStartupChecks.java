package dev.lockstep.transactions.xa;

import dev.lockstep.platform.PostgresqlOnly;
import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.platform.DatabaseSettings;
import dev.lockstep.platform.StartupCheckFailure;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.XAConnection;
import javax.sql.XADataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refuses to start on a configuration under which two-phase commit cannot work or could corrupt
 * data: prepared transactions disabled or too few, both resources on one database, a non-XA driver.
 * Runs before the transaction manager starts, so a failed check leaves no recovery state behind.
 */
public final class XaStartupChecks {

    private static final Logger log = LoggerFactory.getLogger(XaStartupChecks.class);

    private XaStartupChecks() {
    }

    public static void verify(DatabaseEndpoints endpoints, XaDataSourceFactory factory) {
        String businessIdentity = inspect("lockstep.db.business", endpoints.business(), factory);
        String workflowIdentity = inspect("lockstep.db.workflow", endpoints.workflow(), factory);
        if (businessIdentity.equals(workflowIdentity)) {
            throw new StartupCheckFailure("lockstep.db.workflow.url",
                    "points at the same database as lockstep.db.business.url (" + businessIdentity
                            + "); the business and workflow data must live in two databases for XA to mean anything.",
                    "give the workflow database its own database or server. To run on one database, use the single-database"
                            + " mode instead of XA.");
        }
    }

    /** Checks one database and returns a string that identifies it (server and database). */
    private static String inspect(String prefix, DatabaseSettings settings, XaDataSourceFactory factory) {
        if (!settings.isConfigured()) {
            throw new StartupCheckFailure(prefix + ".url", "is not set, and lockstep.mode=external needs both databases.",
                    "set " + prefix + ".url, .username, .password and .vendor (env "
                            + prefix.toUpperCase().replace('.', '_') + "_URL, ...), or leave lockstep.mode unset for the"
                            + " embedded default.");
        }
        settings.validateTimeouts(prefix);
        XADataSource xaDataSource = factory.create(prefix, settings);
        try {
            // Closing the logical connection would leave the physical one open: close the XAConnection.
            XAConnection xaConnection = xaDataSource.getXAConnection();
            try (Connection connection = xaConnection.getConnection()) {
                return switch (settings.vendor()) {
                    case POSTGRESQL -> inspectPostgres(prefix, settings, connection);
                    case ORACLE -> queryString(connection, "select sys_context('USERENV','DB_UNIQUE_NAME') || '/'"
                            + " || sys_context('USERENV','CURRENT_SCHEMA') from dual");
                };
            } finally {
                xaConnection.close();
            }
        } catch (SQLException e) {
            throw new StartupCheckFailure(prefix + ".url", "cannot connect to " + settings.url() + " as '"
                    + settings.username() + "': " + e.getMessage(),
                    "check " + prefix + ".url, .username and .password and that the database is running.");
        }
    }

    @PostgresqlOnly("called for a PostgreSQL database; inspect reads sys_context on Oracle")
    private static String inspectPostgres(String prefix, DatabaseSettings settings, Connection connection) throws SQLException {
        int maxPrepared = Integer.parseInt(queryString(connection, "show max_prepared_transactions"));
        if (maxPrepared < settings.poolSize()) {
            String problem = maxPrepared == 0
                    ? "PostgreSQL at " + settings.url() + " has max_prepared_transactions = 0, so prepared transactions"
                            + " (the first phase of XA) are disabled."
                    : "PostgreSQL at " + settings.url() + " has max_prepared_transactions = " + maxPrepared
                            + ", below " + prefix + ".pool-size = " + settings.poolSize() + ".";
            throw new StartupCheckFailure(prefix + ".url", problem,
                    "set max_prepared_transactions to at least " + settings.poolSize()
                            + " (better: max_connections) in postgresql.conf (see xa-config/postgresql/xa.conf) and restart"
                            + " PostgreSQL, or lower " + prefix + ".pool-size.");
        }
        String identity = queryString(connection,
                "select current_database() || '@' || pg_postmaster_start_time() || ':' || coalesce(inet_server_port(), 0)");
        log.info("{}: {} ok, max_prepared_transactions={} (pool size {})", prefix, settings.url(), maxPrepared,
                settings.poolSize());
        return identity;
    }

    private static String queryString(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getString(1);
        }
    }
}
