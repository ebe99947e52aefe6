package dev.lockstep.xa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.LockstepApplication;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.oracle.OracleContainer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * External mode on Oracle: both databases are schemas of one Oracle Free (two users, set up with
 * xa-config/oracle/grants.sql), the business schema migrated from db/business-oracle, the engine's
 * ACT_* tables in the workflow schema. The service runs as its own JVM, as an operator would start
 * it (one Atomikos per JVM: it must not share this test JVM with the embedded-mode tests).
 * Needs Docker; without it JUnit reports the class as disabled ("Docker is not available").
 */
@Testcontainers(disabledWithoutDocker = true)
class OracleExternalModeTest {

    private static final String PASSWORD = "Lockstep_1";
    private static final Map<String, String> SCHEMA_USERS = Map.of(
            "BUSINESS", "lockstep_business", "WORKFLOW", "lockstep_workflow");

    @Container
    static final OracleContainer oracle = new OracleContainer("gvenzl/oracle-free:23-slim-faststart")
            .withPassword(PASSWORD);

    @TempDir
    Path home;

    @Test
    void theServiceStartsOnOracleForBothDatabasesAndMigratesEach() throws Exception {
        createSchemaUsersWithTheShippedGrants();
        int port = freePort();
        Path output = home.resolve("service.log");
        ProcessBuilder service = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), LockstepApplication.class.getName(), "--server.port=" + port)
                .redirectErrorStream(true).redirectOutput(output.toFile());
        Map<String, String> environment = service.environment();
        environment.put("LOCKSTEP_MODE", "external");
        environment.put("LOCKSTEP_HOME", home.toString());
        environment.put("LOCKSTEP_TM_UNIQUE_NAME", "oracle-it.tm");
        environment.put("LOCKSTEP_TM_PROPERTIES_FILE", "xa-config/atomikos/transactions-test.properties");
        SCHEMA_USERS.forEach((database, user) -> {
            environment.put("LOCKSTEP_DB_" + database + "_URL", oracle.getJdbcUrl());
            environment.put("LOCKSTEP_DB_" + database + "_USERNAME", user);
            environment.put("LOCKSTEP_DB_" + database + "_PASSWORD", PASSWORD);
            environment.put("LOCKSTEP_DB_" + database + "_VENDOR", "oracle");
        });
        Process running = service.start();
        try {
            HttpClient http = HttpClient.newHttpClient();
            HttpRequest health = HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/actuator/health")).build();
            await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofSeconds(2)).ignoreExceptions()
                    .until(() -> !running.isAlive() || http.send(health, HttpResponse.BodyHandlers.ofString()).statusCode() == 200);
            assertThat(running.isAlive()).as("service output:%n%s", Files.readString(output)).isTrue();

            JsonNode components = JsonMapper.builder().build()
                    .readTree(http.send(health, HttpResponse.BodyHandlers.ofString()).body()).path("components");
            for (String component : new String[] {"businessDb", "workflowDb", "transactionManager"}) {
                assertThat(components.path(component).path("status").asString()).as(component).isEqualTo("UP");
            }
            assertThat(components.path("businessDb").path("details").path("vendor").asString()).isEqualTo("ORACLE");

            JdbcTemplate business = schema("lockstep_business");
            assertThat(business.queryForObject("select count(*) from \"flyway_schema_history\""
                    + " where \"version\" = '1' and \"success\" = 1", Integer.class)).isEqualTo(1);
            assertThat(business.queryForObject("select count(*) from application", Integer.class)).isZero();
            assertThat(schema("lockstep_workflow").queryForObject("select count(*) from act_re_procdef", Integer.class))
                    .as("the engine deployed the approval process into the workflow schema").isPositive();
            assertThat(business.queryForObject("select count(*) from sys.dba_pending_transactions", Integer.class))
                    .as("the recovery view is readable (grants.sql) and nothing is in doubt").isZero();
        } finally {
            running.destroy();
            running.waitFor();
        }
    }

    private static void createSchemaUsersWithTheShippedGrants() throws SQLException, IOException {
        Properties sys = new Properties();
        sys.setProperty("user", "sys");
        sys.setProperty("password", PASSWORD);
        sys.setProperty("internal_logon", "sysdba");
        try (Connection connection = DriverManager.getConnection(oracle.getJdbcUrl(), sys);
                Statement sql = connection.createStatement()) {
            for (String user : SCHEMA_USERS.values()) {
                sql.execute("CREATE USER " + user + " IDENTIFIED BY \"" + PASSWORD + "\""
                        + " DEFAULT TABLESPACE users QUOTA UNLIMITED ON users");
            }
            for (String statement : SqlScript.statements(Path.of("xa-config/oracle/grants.sql"))) {
                sql.execute(statement);
            }
        }
    }

    private static JdbcTemplate schema(String user) {
        return new JdbcTemplate(new DriverManagerDataSource(oracle.getJdbcUrl(), user, PASSWORD));
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
