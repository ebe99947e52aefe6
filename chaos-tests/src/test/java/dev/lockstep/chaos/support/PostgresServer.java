package dev.lockstep.chaos.support;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One real PostgreSQL server as a separate process that the test owns: it can be crashed
 * ({@code pg_ctl stop -m immediate} semantics: SIGQUIT to the postmaster, no checkpoint) and
 * started again on the same data directory and port, so prepared transactions survive.
 * Or an external database the operator runs (given by URL): then the test only connects to it.
 */
public final class PostgresServer implements AutoCloseable {

    private final String database;
    private final Path dataDirectory;
    private final int port;
    private final String externalUrl;
    private final String username;
    private final String password;
    private EmbeddedPostgres server;

    public PostgresServer(String database, Path dataDirectory, int port) {
        this.database = database;
        this.dataDirectory = dataDirectory;
        this.port = port;
        this.externalUrl = null;
        this.username = "postgres";
        this.password = "";
    }

    private PostgresServer(String externalUrl, String username, String password) {
        this.database = externalUrl.replaceAll(".*/([^/?]+).*", "$1");
        this.dataDirectory = null;
        this.port = -1;
        this.externalUrl = externalUrl;
        this.username = username;
        this.password = password == null ? "" : password;
    }

    /** An external database from system properties {@code <prefix>.url|username|password}, or null if not configured. */
    public static PostgresServer externalFrom(String prefix) {
        String url = System.getProperty(prefix + ".url", "");
        return url.isBlank() ? null
                : new PostgresServer(url, System.getProperty(prefix + ".username", "postgres"), System.getProperty(prefix + ".password", ""));
    }

    public boolean isExternal() {
        return externalUrl != null;
    }

    public void start() {
        if (isExternal()) {
            return;
        }
        try {
            server = EmbeddedPostgres.builder()
                    .setDataDirectory(dataDirectory)
                    .setCleanDataDirectory(false)
                    .setPort(port)
                    .setServerConfig("max_prepared_transactions", "64")
                    .setServerConfig("max_connections", "200")
                    .start();
        } catch (IOException e) {
            throw new IllegalStateException("could not start PostgreSQL on port " + port, e);
        }
        try (Connection c = DriverManager.getConnection(server.getJdbcUrl("postgres", "postgres"), "postgres", "");
                Statement s = c.createStatement()) {
            var exists = s.executeQuery("select 1 from pg_database where datname = '" + database + "'");
            if (!exists.next()) {
                s.execute("create database " + database);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not create database " + database, e);
        }
    }

    /** An immediate stop: the postmaster and its backends die without a checkpoint, as in a crash. */
    public void crash() {
        if (isExternal()) {
            throw new UnsupportedOperationException("the test cannot crash an external database");
        }
        long pid = postmasterPid();
        ProcessHandle postmaster = ProcessHandle.of(pid).orElseThrow();
        run(List.of("kill", "-QUIT", Long.toString(pid)));
        try {
            postmaster.onExit().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("postmaster " + pid + " did not stop", e);
        }
        closeHandle();
    }

    public void stop() {
        closeHandle();
    }

    private void closeHandle() {
        if (server != null) {
            try {
                server.close(); // releases zonky's lock on the data directory; stop fails quietly if already dead
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            server = null;
        }
    }

    private long postmasterPid() {
        try {
            return Long.parseLong(Files.readAllLines(dataDirectory.resolve("postmaster.pid")).get(0).trim());
        } catch (IOException e) {
            throw new IllegalStateException("no postmaster.pid in " + dataDirectory, e);
        }
    }

    private static void run(List<String> command) {
        try {
            Process p = new ProcessBuilder(command).inheritIO().start();
            if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException(command + " failed");
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public String database() {
        return database;
    }

    public int port() {
        return port;
    }

    public String jdbcUrl() {
        return isExternal() ? externalUrl : "jdbc:postgresql://localhost:" + port + "/" + database;
    }

    public String username() {
        return username;
    }

    public String password() {
        return password;
    }

    /** A plain, non-XA connection as superuser: what a DBA would use. */
    public Connection connect() throws SQLException {
        Connection c = DriverManager.getConnection(jdbcUrl(), username, password);
        c.setAutoCommit(true);
        return c;
    }

    @Override
    public void close() {
        stop();
    }
}
