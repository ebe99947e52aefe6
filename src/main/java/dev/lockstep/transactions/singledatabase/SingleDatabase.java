package dev.lockstep.transactions.singledatabase;

import dev.lockstep.platform.DatabaseSettings;
import dev.lockstep.platform.EmbeddedPostgresServers;
import dev.lockstep.platform.LockstepProperties;
import dev.lockstep.platform.StartupCheckFailure;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one database of the single-database mode: {@code lockstep.db.single.url} when set, else one
 * embedded PostgreSQL server under {@code lockstep.home/pg-single} that this bean starts and stops.
 */
public class SingleDatabase implements Closeable {

    private static final Logger log = LoggerFactory.getLogger(SingleDatabase.class);
    static final String EMBEDDED_DATABASE = "lockstep";

    private final EmbeddedPostgres server;
    private final DatabaseSettings settings;

    SingleDatabase(LockstepProperties properties) {
        refuseTwoDatabaseSettings(properties);
        DatabaseSettings configured = properties.db().single();
        configured.validateTimeouts("lockstep.db.single");
        if (configured.isConfigured()) {
            this.server = null;
            this.settings = configured;
            verifyConnection(settings);
            log.info("single-database mode: business and workflow tables in {} under a local transaction", settings.url());
            return;
        }
        Path home = properties.home().toAbsolutePath().normalize();
        int port = properties.embedded().singlePort();
        try {
            // no prepared transactions: nothing in this mode uses two-phase commit
            this.server = EmbeddedPostgresServers.start(home.resolve("pg-single"), port, "lockstep.embedded.single-port", 0);
        } catch (StartupCheckFailure e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            throw new StartupCheckFailure("lockstep.home", "could not start the embedded PostgreSQL server under " + home
                    + " (" + e.getMessage() + ").", "make sure the directory is writable and lockstep.embedded.single-port ("
                    + port + ") is free, or set it to 0.");
        }
        this.settings = EmbeddedPostgresServers.settings(server, EMBEDDED_DATABASE, configured);
        log.info("""

                Single-database mode: one embedded PostgreSQL server (data under {}), no XA:
                  business and workflow tables: {}   psql -h localhost -p {} -U postgres {}""",
                home, settings.url(), server.getPort(), EMBEDDED_DATABASE);
    }

    /** The two-database settings mean the operator expected XA; running on one database instead would surprise them. */
    private static void refuseTwoDatabaseSettings(LockstepProperties properties) {
        if (properties.db().business().isConfigured() || properties.db().workflow().isConfigured()) {
            throw new StartupCheckFailure("lockstep.mode", "is single, but lockstep.db.business.url or lockstep.db.workflow.url"
                    + " is set as well; the single-database mode uses one database only.",
                    "set lockstep.db.single.url (or nothing, for the embedded server), or use lockstep.mode=external for two"
                            + " databases under XA.");
        }
    }

    private static void verifyConnection(DatabaseSettings settings) {
        try (Connection connection = settings.plainDataSource().getConnection()) {
            connection.isValid(5);
        } catch (SQLException e) {
            throw new StartupCheckFailure("lockstep.db.single.url", "cannot connect to " + settings.url() + " as '"
                    + settings.username() + "': " + e.getMessage(),
                    "check lockstep.db.single.url, .username and .password and that the database is running.");
        }
    }

    public DatabaseSettings settings() {
        return settings;
    }

    @Override
    public void close() throws IOException {
        if (server != null) {
            server.close();
        }
    }
}
