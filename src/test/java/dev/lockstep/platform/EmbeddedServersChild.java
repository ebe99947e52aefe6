package dev.lockstep.platform;


import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Map;

/**
 * A stand-in for the service JVM in {@link EmbeddedPostgresServersTest}: starts the embedded servers
 * under the given home, leaves a prepared transaction in the business database, says READY and waits
 * to be killed.
 */
public final class EmbeddedServersChild {

    static final String PREPARED_GID = "left-by-killed-jvm";

    private EmbeddedServersChild() {
    }

    public static void main(String[] args) throws Exception {
        EmbeddedPostgresServers servers = new EmbeddedPostgresServers(TestProperties.embeddedAt(Path.of(args[0]), Map.of()));
        try (Connection connection = servers.endpoints().business().plainDataSource().getConnection();
                Statement sql = connection.createStatement()) {
            sql.execute("create table survivor (id int primary key)");
            connection.setAutoCommit(false);
            sql.execute("insert into survivor values (1)");
            sql.execute("prepare transaction '" + PREPARED_GID + "'");
            connection.setAutoCommit(true);
        }
        System.out.println("READY");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
