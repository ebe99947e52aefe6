package dev.lockstep.chaos.support;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

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
    /** Server settings of the next start beyond the suite's own (e.g. those of a replicating primary). */
    private final Map<String, String> settings = new LinkedHashMap<>();
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
            EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                    .setDataDirectory(dataDirectory)
                    .setCleanDataDirectory(false)
                    .setPort(port)
                    // a standby needs both at least as high as its primary's: every server of the suite has the same
                    .setServerConfig("max_prepared_transactions", "64")
                    .setServerConfig("max_connections", "200")
                    // as the product's embedded servers: zonky's default (off) acknowledges a commit before its WAL
                    // is written, and a server killed in the next few hundred ms loses it (scenario 6 lost its
                    // draft that way on a loaded machine). fsync stays off: only server processes die here, not the OS.
                    .setServerConfig("synchronous_commit", "on")
                    // a standby answers only once its startup replay is done; zonky's 10 s is short on a busy 2-core machine
                    .setPGStartupWait(Duration.ofSeconds(60));
            settings.forEach(builder::setServerConfig);
            server = builder.start();
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

    /** SIGKILL to the postmaster and every backend at once: the machine is lost, nothing is flushed or shut down. */
    public void kill9() {
        if (isExternal()) {
            throw new UnsupportedOperationException("the test cannot kill an external database");
        }
        ProcessHandle postmaster = ProcessHandle.of(postmasterPid()).orElseThrow();
        List<ProcessHandle> all = Stream.concat(Stream.of(postmaster), postmaster.descendants()).toList();
        all.forEach(ProcessHandle::destroyForcibly);
        for (ProcessHandle p : all) {
            try {
                p.onExit().get(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException("PostgreSQL process " + p.pid() + " did not die", e);
            }
        }
        closeHandle();
    }

    /**
     * A streaming standby of this server, made from a cold copy of its data directory: this server must be
     * stopped cleanly (its shutdown checkpoint makes the copy consistent). The standby follows this server
     * on its port as {@code applicationName}; this server's next start waits for that standby to flush each
     * commit and PREPARE TRANSACTION before acknowledging it ({@code synchronous_standby_names}).
     */
    public PostgresServer coldCopyAsSynchronousStandby(String applicationName, Path standbyDirectory, int standbyPort) {
        if (server != null || Files.exists(dataDirectory.resolve("postmaster.pid"))) {
            throw new IllegalStateException("a cold copy needs the server stopped cleanly: " + dataDirectory);
        }
        try {
            copyTree(dataDirectory, standbyDirectory);
            Files.writeString(standbyDirectory.resolve("standby.signal"), "");
            Files.writeString(standbyDirectory.resolve("postgresql.auto.conf"), "primary_conninfo = 'host=127.0.0.1 port=" + port
                    + " user=" + username + " application_name=" + applicationName + "'\n", StandardOpenOption.APPEND);
            Path hba = dataDirectory.resolve("pg_hba.conf");
            if (Files.readAllLines(hba).stream().noneMatch(l -> l.matches("\\s*host\\s+replication\\s.*127\\.0\\.0\\.1/32.*"))) {
                Files.writeString(hba, "host replication all 127.0.0.1/32 trust\n", StandardOpenOption.APPEND);
            }
        } catch (IOException e) {
            throw new IllegalStateException("could not make a standby of " + dataDirectory + " in " + standbyDirectory, e);
        }
        settings.put("wal_level", "replica");
        settings.put("synchronous_standby_names", applicationName);
        return new PostgresServer(database, standbyDirectory, standbyPort);
    }

    /** Waits until the standby {@code applicationName} streams from this server as its synchronous standby. */
    public void awaitSynchronousStandby(String applicationName, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!"streaming sync".equals(replicationState(applicationName))) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("standby " + applicationName + " not a streaming synchronous standby after " + timeout
                        + ": " + replicationState(applicationName));
            }
            Pause.sleep(200);
        }
    }

    /** {@code state sync_state} of the standby in {@code pg_stat_replication}, or null while it is not connected. */
    public String replicationState(String applicationName) {
        try (Connection c = connect(); var s = c.prepareStatement(
                "select state || ' ' || sync_state from pg_stat_replication where application_name = ?")) {
            s.setString(1, applicationName);
            var r = s.executeQuery();
            return r.next() ? r.getString(1) : null;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Promotes this standby: it ends recovery and becomes a primary that accepts writes. {@code pg_promote()} is the SQL
     * form of {@code pg_ctl promote} (pg_ctl refuses to run as root, as the suite may; zonky starts it in a user namespace).
     */
    public void promote() {
        try (Connection c = connect(); ResultSet r = c.createStatement().executeQuery("select pg_promote(true, 60)")) {
            if (!r.next() || !r.getBoolean(1)) {
                throw new IllegalStateException("the standby on port " + port + " was not promoted within 60 s");
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not promote the standby on port " + port, e);
        }
    }

    /** {@code pg_is_in_recovery()}: true on a standby, false on a primary. */
    public boolean inRecovery() {
        try (Connection c = connect(); ResultSet r = c.createStatement().executeQuery("select pg_is_in_recovery()")) {
            r.next();
            return r.getBoolean(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
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

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path p : paths.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (!p.getFileName().toString().equals("epg-lock")) { // zonky's lock file of the source server
                    Files.copy(p, target, StandardCopyOption.COPY_ATTRIBUTES); // PostgreSQL insists on its 0700 directories
                }
            }
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
