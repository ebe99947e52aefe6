package dev.lockstep.transactions.xa;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.ConnectionEventListener;
import javax.sql.StatementEventListener;
import javax.sql.XAConnection;
import javax.sql.XADataSource;
import javax.transaction.xa.XAResource;

/** The driver's XA DataSource whose connections hand out TimedXaResources, for the pool and for recovery alike. */
final class TimedXaDataSource implements XADataSource {

    private final XADataSource driver;
    private final String resource;

    TimedXaDataSource(XADataSource driver, String resource) {
        this.driver = driver;
        this.resource = resource;
    }

    @Override
    public XAConnection getXAConnection() throws SQLException {
        return new TimedXaConnection(driver.getXAConnection(), resource);
    }

    @Override
    public XAConnection getXAConnection(String user, String password) throws SQLException {
        return new TimedXaConnection(driver.getXAConnection(user, password), resource);
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return driver.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        driver.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        driver.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return driver.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return driver.getParentLogger();
    }

    @Override
    public String toString() {
        return driver.toString();
    }

    private record TimedXaConnection(XAConnection driver, String resource) implements XAConnection {

        @Override
        public XAResource getXAResource() throws SQLException {
            return new TimedXaResource(driver.getXAResource(), resource);
        }

        @Override
        public Connection getConnection() throws SQLException {
            return driver.getConnection();
        }

        @Override
        public void close() throws SQLException {
            driver.close();
        }

        @Override
        public void addConnectionEventListener(ConnectionEventListener listener) {
            driver.addConnectionEventListener(listener);
        }

        @Override
        public void removeConnectionEventListener(ConnectionEventListener listener) {
            driver.removeConnectionEventListener(listener);
        }

        @Override
        public void addStatementEventListener(StatementEventListener listener) {
            driver.addStatementEventListener(listener);
        }

        @Override
        public void removeStatementEventListener(StatementEventListener listener) {
            driver.removeStatementEventListener(listener);
        }
    }
}
