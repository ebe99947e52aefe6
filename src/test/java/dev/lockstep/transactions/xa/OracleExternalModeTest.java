package dev.lockstep.transactions.xa;

import static dev.lockstep.support.ServiceProcess.basic;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.support.ServiceProcess;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.junit.jupiter.api.Test;
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
 * it ({@link ServiceProcess}: one Atomikos per JVM).
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

    private final Path home = Path.of("target", "oracle-it", UUID.randomUUID().toString());

    @Test
    void theServiceStartsOnOracleForBothDatabasesAndMigratesEach() throws Exception {
        createSchemaUsersWithTheShippedGrants();
        Map<String, String> environment = new HashMap<>();
        environment.put("LOCKSTEP_MODE", "external");
        environment.put("LOCKSTEP_TM_UNIQUE_NAME", "oracle-it.tm");
        environment.put("LOCKSTEP_TM_PROPERTIES_FILE", "xa-config/atomikos/transactions-test.properties");
        SCHEMA_USERS.forEach((database, user) -> {
            environment.put("LOCKSTEP_DB_" + database + "_URL", oracle.getJdbcUrl());
            environment.put("LOCKSTEP_DB_" + database + "_USERNAME", user);
            environment.put("LOCKSTEP_DB_" + database + "_PASSWORD", PASSWORD);
            environment.put("LOCKSTEP_DB_" + database + "_VENDOR", "oracle");
        });
        // External mode never starts with the demo users.
        environment.put("LOCKSTEP_SECURITY_USERS_0_NAME", "ops");
        environment.put("LOCKSTEP_SECURITY_USERS_0_PASSWORD", "{noop}ops-only-in-this-test");
        environment.put("LOCKSTEP_SECURITY_USERS_0_ROLES", "ADMIN");

        try (ServiceProcess service = ServiceProcess.start(home, environment).awaitUp()) {
            HttpResponse<String> health = service.get("/actuator/health", basic("ops", "ops-only-in-this-test"));
            assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
            JsonNode components = JsonMapper.builder().build().readTree(health.body()).path("components");
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
}
