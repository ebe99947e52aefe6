package dev.lockstep.platform;

import com.zaxxer.hikari.HikariConfig;
import java.time.Duration;
import java.util.Optional;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * How to reach one of the two databases. {@code xaDataSourceClass} is optional: it defaults to the
 * vendor's XA DataSource and exists so that a misconfigured non-XA class is caught at startup. The
 * four timeouts bound every wait on this database, so one stuck transaction (a prepared branch holding
 * a row lock, a dead server) stalls only the requests that need what it holds, never the pool.
 */
@AreaApi
public record DatabaseSettings(
        String url,
        String username,
        String password,
        DatabaseVendor vendor,
        Integer poolSize,
        String xaDataSourceClass,
        Duration lockTimeout,
        Duration statementTimeout,
        Duration socketTimeout,
        Duration connectTimeout) {

    public static final int DEFAULT_POOL_SIZE = 10;
    public static final Duration DEFAULT_LOCK_TIMEOUT = Duration.ofSeconds(5);
    public static final Duration DEFAULT_STATEMENT_TIMEOUT = Duration.ofSeconds(30);
    public static final Duration DEFAULT_SOCKET_TIMEOUT = Duration.ofSeconds(40);
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);

    private static final Pattern SESSION_TIMEOUT = Pattern.compile("-c (lock_timeout|statement_timeout)=(\\d+)");

    public DatabaseSettings {
        if (vendor == null) {
            vendor = DatabaseVendor.POSTGRESQL;
        }
        if (poolSize == null) {
            poolSize = DEFAULT_POOL_SIZE;
        }
        if (xaDataSourceClass == null || xaDataSourceClass.isBlank()) {
            xaDataSourceClass = vendor.defaultXaDataSourceClass();
        }
        lockTimeout = lockTimeout == null ? DEFAULT_LOCK_TIMEOUT : lockTimeout;
        statementTimeout = statementTimeout == null ? DEFAULT_STATEMENT_TIMEOUT : statementTimeout;
        socketTimeout = socketTimeout == null ? DEFAULT_SOCKET_TIMEOUT : socketTimeout;
        connectTimeout = connectTimeout == null ? DEFAULT_CONNECT_TIMEOUT : connectTimeout;
    }

    /** Settings with nothing configured: every default, no URL. */
    public static DatabaseSettings unset() {
        return new DatabaseSettings(null, null, null, null, null, null, null, null, null, null);
    }

    public boolean isConfigured() {
        return url != null && !url.isBlank();
    }

    public DatabaseSettings withConnection(String newUrl, String newUsername, String newPassword) {
        return new DatabaseSettings(newUrl, newUsername, newPassword, vendor, poolSize, xaDataSourceClass, lockTimeout,
                statementTimeout, socketTimeout, connectTimeout);
    }

    /**
     * Refuses timeouts that cannot work: zero or negative ones (PostgreSQL reads 0 as "wait forever"),
     * a lock timeout not below the statement timeout (the statement would be cancelled first and the
     * holder never named), a socket timeout not above the statement timeout (the driver would drop a
     * connection the server is still answering on, leaving its state unknown).
     */
    public void validateTimeouts(String prefix) {
        StartupCheckFailure.requirePositive(prefix + ".lock-timeout", lockTimeout, "5s");
        StartupCheckFailure.requirePositive(prefix + ".statement-timeout", statementTimeout, "5s");
        StartupCheckFailure.requirePositive(prefix + ".socket-timeout", socketTimeout, "5s");
        StartupCheckFailure.requirePositive(prefix + ".connect-timeout", connectTimeout, "5s");
        if (lockTimeout.compareTo(statementTimeout) >= 0) {
            throw new StartupCheckFailure(prefix + ".lock-timeout", "is " + lockTimeout + ", not below " + prefix
                    + ".statement-timeout (" + statementTimeout + "): a lock wait would be cancelled as a slow statement"
                    + " and its holder never reported.", "set it below the statement timeout, e.g. 5s with 30s.");
        }
        if (socketTimeout.compareTo(statementTimeout) <= 0) {
            throw new StartupCheckFailure(prefix + ".socket-timeout", "is " + socketTimeout + ", not above " + prefix
                    + ".statement-timeout (" + statementTimeout + "): the driver would drop connections the server is"
                    + " still answering on.", "set it a few seconds above the statement timeout, e.g. 40s with 30s.");
        }
    }

    /**
     * The driver properties that carry the timeouts. PostgreSQL takes the lock and statement timeouts
     * as session settings at connect time ({@code options=-c lock_timeout=...}) and the socket and
     * connect timeouts in whole seconds; Oracle has no session lock or statement timeout (see
     * docs/operations.md), only the connect and read timeouts of its network layer.
     */
    public Properties timeoutProperties(boolean withStatementTimeouts) {
        Properties properties = new Properties();
        switch (vendor) {
            case POSTGRESQL -> {
                properties.setProperty("connectTimeout", Long.toString(wholeSeconds(connectTimeout)));
                // connectTimeout bounds only the TCP connect; without loginTimeout a server that accepts and then
                // answers nothing (a dead route behind a proxy, a frozen host) holds the login forever, and Atomikos's
                // recovery thread holds its resource lock while it waits (chaos scenarios 51-54)
                properties.setProperty("loginTimeout", Long.toString(wholeSeconds(connectTimeout)));
                if (withStatementTimeouts) {
                    properties.setProperty("options", "-c lock_timeout=" + lockTimeout.toMillis() + " -c statement_timeout="
                            + statementTimeout.toMillis());
                    properties.setProperty("socketTimeout", Long.toString(wholeSeconds(socketTimeout)));
                } else {
                    properties.setProperty("options", "-c lock_timeout=" + lockTimeout.toMillis());
                }
            }
            case ORACLE -> {
                properties.setProperty("oracle.net.CONNECT_TIMEOUT", Long.toString(connectTimeout.toMillis()));
                if (withStatementTimeouts) {
                    properties.setProperty("oracle.jdbc.ReadTimeout", Long.toString(socketTimeout.toMillis()));
                }
            }
        }
        return properties;
    }

    /**
     * Which bound, if any, the driver properties of a pool of {@code jdbcUrl} lack, as the setting's last part
     * ({@code lock-timeout}, {@code statement-timeout}, {@code socket-timeout}, {@code connect-timeout}): the reverse
     * of {@link #timeoutProperties(boolean) timeoutProperties(true)}, for a pool that was built some other way or had
     * its properties replaced afterwards (a second {@code options} wipes the first).
     */
    public static Optional<String> missingBound(String jdbcUrl, Properties properties) {
        if (jdbcUrl != null && jdbcUrl.startsWith("jdbc:oracle:")) {
            // Oracle has no session lock or statement timeout (docs/operations.md): its network timeouts are all there is
            return !positive(properties, "oracle.jdbc.ReadTimeout") ? Optional.of("socket-timeout")
                    : !positive(properties, "oracle.net.CONNECT_TIMEOUT") ? Optional.of("connect-timeout") : Optional.empty();
        }
        boolean lock = false;
        boolean statement = false;
        Matcher session = SESSION_TIMEOUT.matcher(properties.getProperty("options", ""));
        while (session.find()) {
            boolean set = Long.parseLong(session.group(2)) > 0;
            lock |= set && session.group(1).equals("lock_timeout");
            statement |= set && session.group(1).equals("statement_timeout");
        }
        if (!lock) {
            return Optional.of("lock-timeout");
        }
        if (!statement) {
            return Optional.of("statement-timeout");
        }
        if (!positive(properties, "socketTimeout")) {
            return Optional.of("socket-timeout");
        }
        return positive(properties, "connectTimeout") && positive(properties, "loginTimeout") ? Optional.empty()
                : Optional.of("connect-timeout");
    }

    private static boolean positive(Properties properties, String name) {
        try {
            return Long.parseLong(properties.getProperty(name, "0").trim()) > 0;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static long wholeSeconds(Duration duration) {
        return Math.max(1, (duration.toMillis() + 999) / 1000);
    }

    /**
     * A pool of plain (non-XA) connections to this database with every timeout, for a capability's own work outside any
     * XA transaction; the caller adds what is particular to it (size of its idle set, borrow timeout, read-only) and
     * builds the pool. The one place a pool gets its bounds: {@code BoundedPoolCheck} refuses to start with a pool bean
     * that lacks one.
     */
    public HikariConfig plainPool(String poolName, int maximumSize) {
        HikariConfig config = new HikariConfig();
        config.setPoolName(poolName);
        config.setJdbcUrl(url);
        config.setUsername(username);
        config.setPassword(password);
        config.setDataSourceProperties(timeoutProperties(true));
        config.setMaximumPoolSize(maximumSize);
        config.setMinimumIdle(0);
        return config;
    }

    /** A plain, non-XA view of this database for inspection outside any transaction, with every timeout. */
    public DataSource plainDataSource() {
        return plain(true);
    }

    /**
     * For schema work (migrations, the engine's tables): the lock and connect timeouts but no statement
     * or socket timeout, since an upgrade may rewrite a large table for longer than any request should wait.
     */
    public DataSource schemaDataSource() {
        return plain(false);
    }

    private DataSource plain(boolean withStatementTimeouts) {
        DriverManagerDataSource dataSource = new DriverManagerDataSource(url, username, password);
        dataSource.setConnectionProperties(timeoutProperties(withStatementTimeouts));
        return dataSource;
    }
}
