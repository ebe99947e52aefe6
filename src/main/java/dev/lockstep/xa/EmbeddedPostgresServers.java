package dev.lockstep.xa;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.Closeable;
import java.io.IOException;
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
            startedBusiness = start(home.resolve("pg-business"), embedded.businessPort(), embedded.maxPreparedTransactions());
            this.business = startedBusiness;
            this.workflow = start(home.resolve("pg-workflow"), embedded.workflowPort(), embedded.maxPreparedTransactions());
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
    public static EmbeddedPostgres start(Path dataDirectory, int port, int maxPreparedTransactions) throws IOException {
        return EmbeddedPostgres.builder()
                .setDataDirectory(dataDirectory)
                .setCleanDataDirectory(false)
                .setPort(port)
                .setServerConfig("max_prepared_transactions", Integer.toString(maxPreparedTransactions))
                .setServerConfig("max_connections", "200")
                // the embedded library starts PostgreSQL with -F (fsync off) and synchronous_commit off;
                // a reported commit or a prepared branch must survive a crash, so both go back on
                .setServerConfig("fsync", "on")
                .setServerConfig("synchronous_commit", "on")
                .start();
    }

    public static DatabaseSettings settings(EmbeddedPostgres server, String database, DatabaseSettings configured) {
        createDatabaseIfMissing(server, database);
        return configured.withConnection(server.getJdbcUrl("postgres", database), "postgres", "");
    }

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
