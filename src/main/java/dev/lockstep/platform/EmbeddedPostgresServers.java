package dev.lockstep.platform;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded default: two separate PostgreSQL clusters (business and workflow) whose data stays
 * under {@code lockstep.home}, so prepared transactions survive a restart of the service.
 */
@AreaApi
public class EmbeddedPostgresServers implements Closeable {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedPostgresServers.class);
    static final String BUSINESS_DATABASE = "lockstep_business";
    static final String WORKFLOW_DATABASE = "lockstep_workflow";

    private final EmbeddedPostgres business;
    private final EmbeddedPostgres workflow;
    private final DatabaseEndpoints endpoints;

    public EmbeddedPostgresServers(LockstepProperties properties) {
        LockstepProperties.Embedded embedded = properties.embedded();
        Path home = properties.home().toAbsolutePath().normalize();
        EmbeddedPostgres startedBusiness = null;
        try {
            startedBusiness = start(home.resolve("pg-business"), embedded.businessPort(), "lockstep.embedded.business-port",
                    embedded.maxPreparedTransactions());
            this.business = startedBusiness;
            this.workflow = start(home.resolve("pg-workflow"), embedded.workflowPort(), "lockstep.embedded.workflow-port",
                    embedded.maxPreparedTransactions());
        } catch (StartupCheckFailure e) {
            closeQuietly(startedBusiness);
            throw e;
        } catch (IOException | RuntimeException e) {
            closeQuietly(startedBusiness);
            throw new StartupCheckFailure("lockstep.home",
                    "could not start the embedded PostgreSQL servers under " + home + " (" + e.getMessage() + ").",
                    "make sure the directory is writable and the ports lockstep.embedded.business-port/workflow-port ("
                            + embedded.businessPort() + ", " + embedded.workflowPort() + ") are free, or set them to 0.");
        }
        this.endpoints = new DatabaseEndpoints(
                settings(business, BUSINESS_DATABASE, properties.db().business()),
                settings(workflow, WORKFLOW_DATABASE, properties.db().workflow()));
        log.info("""

                Embedded PostgreSQL servers are up (data under {}):
                  business database: {}   psql -h localhost -p {} -U postgres {}
                  workflow database: {}   psql -h localhost -p {} -U postgres {}
                  Atomikos log:      {}""",
                home, endpoints.business().url(), business.getPort(), BUSINESS_DATABASE,
                endpoints.workflow().url(), workflow.getPort(), WORKFLOW_DATABASE,
                properties.tmLogDir().toAbsolutePath().normalize());
    }

    /** Starts (or restarts on its kept data) one server; the single-database mode runs exactly one. */
    public static EmbeddedPostgres start(Path dataDirectory, int port, String portSetting, int maxPreparedTransactions)
            throws IOException {
        LeftoverPostmaster.clear(dataDirectory);
        requireFree(port, portSetting);
        return EmbeddedPostgres.builder()
                .setDataDirectory(dataDirectory)
                .setCleanDataDirectory(false)
                .setPort(port)
                .setServerConfig("max_prepared_transactions", Integer.toString(maxPreparedTransactions))
                .setServerConfig("max_connections", "200")
                // The library starts PostgreSQL with fsync and synchronous_commit off (fine for throw-away test
                // databases); a commit acknowledged to Atomikos must survive a crash of the server.
                .setServerConfig("fsync", "on")
                .setServerConfig("synchronous_commit", "on")
                // The library's own JVM shutdown hook would stop the server while the context, in its own hook,
                // still drains: in-flight commits and the lease release lost their database. The bean that starts
                // a server stops it, after everything built on it (a killed JVM's server is cleared at the next start).
                .setRegisterShutdownHook(false)
                .start();
    }

    /** Fails with the setting's name instead of a PostgreSQL start-up timeout when the port is taken. */
    private static void requireFree(int port, String portSetting) {
        if (port == 0) {
            return;
        }
        try (ServerSocket probe = new ServerSocket()) {
            probe.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        } catch (IOException e) {
            throw new StartupCheckFailure(portSetting, "port " + port + " is already in use (" + e.getMessage()
                    + "), so the embedded PostgreSQL server cannot listen on it.",
                    "stop the process listening there (ss -ltnp 'sport = :" + port + "'), or set " + portSetting + " (env "
                            + portSetting.toUpperCase().replace('.', '_').replace('-', '_')
                            + ") to a free port, or to 0 to pick one at random.");
        }
    }

    public static DatabaseSettings settings(EmbeddedPostgres server, String database, DatabaseSettings configured) {
        createDatabaseIfMissing(server, database);
        return configured.withConnection(server.getJdbcUrl("postgres", database), "postgres", "");
    }

    @PostgresqlOnly("the embedded default is PostgreSQL by definition")
    private static void createDatabaseIfMissing(EmbeddedPostgres server, String database) {
        try (Connection connection = server.getPostgresDatabase().getConnection();
                PreparedStatement exists = connection.prepareStatement("select 1 from pg_database where datname = ?")) {
            exists.setString(1, database);
            try (ResultSet rows = exists.executeQuery()) {
                if (rows.next()) {
                    return;
                }
            }
            try (Statement create = connection.createStatement()) {
                create.execute("create database " + database);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not create embedded database " + database, e);
        }
    }

    /**
     * A database of its own in the business server, for a component that must not share the business
     * or workflow database (the reference catalog): separate data, no extra server to run.
     */
    public DatabaseSettings separateDatabase(String database) {
        return settings(business, database, DatabaseSettings.unset());
    }

    public DatabaseEndpoints endpoints() {
        return endpoints;
    }

    public int businessPort() {
        return business.getPort();
    }

    public int workflowPort() {
        return workflow.getPort();
    }

    @Override
    public void close() {
        closeQuietly(workflow);
        closeQuietly(business);
    }

    private static void closeQuietly(EmbeddedPostgres server) {
        if (server == null) {
            return;
        }
        try {
            server.close();
        } catch (IOException e) {
            log.warn("embedded PostgreSQL did not stop cleanly: {}", e.getMessage());
        }
    }
}
