package dev.lockstep.platform;


import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.jdbc.core.JdbcTemplate;

/** The embedded default starts cleanly after a crash and names the setting when a port is taken. */
class EmbeddedPostgresServersTest {

    @TempDir
    Path home;

    /** A failed test must not leave servers behind either. */
    @AfterEach
    void stopLeftovers() throws IOException {
        LeftoverPostmaster.clear(home.resolve("pg-business").toAbsolutePath());
        LeftoverPostmaster.clear(home.resolve("pg-workflow").toAbsolutePath());
    }

    @Test
    void afterTheServiceJvmWasKilledItsOrphanedServersAreStoppedAndTheDataIsReused() throws Exception {
        Path childLog = home.resolve("child.log");
        Process serviceJvm = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), EmbeddedServersChild.class.getName(), home.toString())
                .redirectErrorStream(true).redirectOutput(childLog.toFile()).start();
        try {
            await().atMost(Duration.ofSeconds(90))
                    .until(() -> Files.readString(childLog).contains("READY") || !serviceJvm.isAlive());
            assertThat(serviceJvm.isAlive()).as("child JVM output: %s", Files.readString(childLog)).isTrue();
        } finally {
            serviceJvm.destroyForcibly().waitFor(); // SIGKILL: no shutdown hook stops its servers
        }
        long orphan = postmasterPid(home.resolve("pg-business"));
        assertThat(ProcessHandle.of(orphan)).as("the killed JVM's business server outlives it").isPresent();

        try (EmbeddedPostgresServers servers = new EmbeddedPostgresServers(TestProperties.embeddedAt(home, Map.of()))) {
            JdbcTemplate business = new JdbcTemplate(servers.endpoints().business().plainDataSource());
            assertThat(postmasterPid(home.resolve("pg-business"))).isNotEqualTo(orphan);
            assertThat(business.queryForList("select gid from pg_prepared_xacts", String.class))
                    .as("a fast shutdown keeps prepared transactions for recovery")
                    .containsExactly(EmbeddedServersChild.PREPARED_GID);
            business.execute("rollback prepared '" + EmbeddedServersChild.PREPARED_GID + "'");
        }
    }

    @Test
    void aPidFileWhoseProcessIdNowBelongsToAnotherProgramIsRemoved() throws Exception {
        new EmbeddedPostgresServers(TestProperties.embeddedAt(home, Map.of())).close();
        Path business = home.resolve("pg-business").toAbsolutePath();
        Process unrelated = new ProcessBuilder("sleep", "300").start();
        try {
            // What a machine crash leaves: the recorded pid is alive again, as some other program.
            Files.writeString(business.resolve(LeftoverPostmaster.PID_FILE), unrelated.pid() + "\n" + business + "\n");
            try (EmbeddedPostgresServers servers = new EmbeddedPostgresServers(TestProperties.embeddedAt(home, Map.of()))) {
                JdbcTemplate sql = new JdbcTemplate(servers.endpoints().business().plainDataSource());
                assertThat(sql.queryForObject("select current_database()", String.class)).isEqualTo("lockstep_business");
                assertThat(postmasterPid(business)).isNotEqualTo(unrelated.pid());
            }
            assertThat(unrelated.isAlive()).as("the other program is left alone").isTrue();
        } finally {
            unrelated.destroy();
        }
    }

    @Test
    void aTakenPortStopsStartupNamingThePortSetting() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();
            assertThatThrownBy(() -> new EmbeddedPostgresServers(TestProperties.embeddedAt(home,
                    Map.of("lockstep.embedded.business-port", Integer.toString(port)))))
                    .isInstanceOf(StartupCheckFailure.class)
                    .hasMessageStartingWith("lockstep.embedded.business-port: port " + port + " is already in use")
                    .hasMessageContaining("LOCKSTEP_EMBEDDED_BUSINESS_PORT");
        }
    }

    @Test
    void bothServersOnOnePortStopsStartupAndLeavesNoServerRunning() throws IOException {
        int port = freePort();
        assertThatThrownBy(() -> new EmbeddedPostgresServers(TestProperties.embeddedAt(home, Map.of(
                "lockstep.embedded.business-port", Integer.toString(port),
                "lockstep.embedded.workflow-port", Integer.toString(port)))))
                .isInstanceOf(StartupCheckFailure.class)
                .hasMessageStartingWith("lockstep.embedded.workflow-port: port " + port + " is already in use");
        assertThat(home.resolve("pg-business").resolve(LeftoverPostmaster.PID_FILE))
                .as("the business server that did start was stopped again").doesNotExist();
        assertThat(freePort(port)).isEqualTo(port);
    }

    private static long postmasterPid(Path dataDirectory) throws IOException {
        return Long.parseLong(Files.readAllLines(dataDirectory.resolve(LeftoverPostmaster.PID_FILE)).get(0).trim());
    }

    private static int freePort() throws IOException {
        return freePort(0);
    }

    private static int freePort(int port) throws IOException {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return socket.getLocalPort();
        }
    }
}
