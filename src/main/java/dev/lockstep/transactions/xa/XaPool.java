package dev.lockstep.transactions.xa;

import com.atomikos.datasource.ResourceException;
import com.atomikos.icatch.config.Configuration;
import io.agroal.api.AgroalDataSource;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.Set;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * The XA connections of one database: an Agroal pool whose connections join the current JTA transaction as a
 * branch of it ({@link AtomikosTransactionIntegration}), and Atomikos's recovery of that database
 * ({@link RecoverableDatabase}), registered for as long as the pool is open.
 */
public final class XaPool implements DataSource, AutoCloseable {

    /** How long a borrow waits for a connection to come free. */
    static final Duration BORROW_TIMEOUT = Duration.ofSeconds(10);

    /**
     * Agroal's messages when the acquisition timeout passed (it has no exception type of its own): no connection came
     * free, or the new one it was opening for this borrow was not open yet.
     */
    private static final Set<String> AGROAL_ACQUISITION_TIMEOUTS =
            Set.of("Sorry, acquisition timeout!", "Acquisition timeout while waiting for new connection");

    private final AgroalDataSource pool;
    private final RecoverableDatabase recovery;

    XaPool(AgroalDataSource pool, RecoverableDatabase recovery) {
        this.pool = pool;
        this.recovery = recovery;
        Configuration.addResource(recovery);
    }

    /** The Atomikos resource name of this database, the one its recovery is registered under. */
    public String uniqueResourceName() {
        return recovery.getName();
    }

    /** The most connections the pool opens. */
    public int maxSize() {
        return pool.getConfiguration().connectionPoolConfiguration().maxSize();
    }

    /** Connections in the pool, in use or not. */
    public long totalSize() {
        return pool.getMetrics().activeCount() + pool.getMetrics().availableCount();
    }

    /** Idle connections in the pool. */
    public long availableSize() {
        return pool.getMetrics().availableCount();
    }

    /**
     * A connection enlisted in the current transaction: the one the transaction already holds from this pool, or a
     * validated one from the pool. No connection free or newly opened within {@link #BORROW_TIMEOUT} is an
     * {@link SQLTransientConnectionException} without an SQLState (503 DATABASE_BUSY): the transaction rolls back and the
     * request can be retried.
     */
    @Override
    public Connection getConnection() throws SQLException {
        try {
            return pool.getConnection();
        } catch (SQLException e) {
            throw transientWhenTimedOut(e, uniqueResourceName(), maxSize());
        }
    }

    /** {@code failure} of a borrow from an Agroal pool, as {@link #getConnection} reports it. */
    static SQLException transientWhenTimedOut(SQLException failure, String resource, int poolSize) {
        return AGROAL_ACQUISITION_TIMEOUTS.contains(failure.getMessage())
                ? new SQLTransientConnectionException("no connection of " + resource + " came free or was opened within "
                        + BORROW_TIMEOUT.toSeconds() + " s (pool of " + poolSize + ")", null, failure)
                : failure;
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        throw new SQLFeatureNotSupportedException("the XA pool connects with its configured user only");
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return pool.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        pool.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        pool.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return pool.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return pool.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        if (type.isInstance(this)) {
            return type.cast(this);
        }
        return pool.unwrap(type);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) throws SQLException {
        return type.isInstance(this) || pool.isWrapperFor(type);
    }

    /** Unregisters the database from Atomikos's recovery, closes recovery's connection, then the pool. */
    @Override
    public void close() throws ResourceException {
        Configuration.removeResource(uniqueResourceName());
        try {
            recovery.close();
        } finally {
            pool.close();
        }
    }

    @Override
    public String toString() {
        return "XA pool " + uniqueResourceName();
    }
}
