package dev.lockstep.transactions.xa;

import static dev.lockstep.support.ServiceProcess.basic;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.support.SecondNode;
import dev.lockstep.support.ServiceProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.oracle.OracleContainer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Oracle as the business and as the workflow database (issue 36 item 3): both are schemas of one Oracle Free (two
 * users, set up with xa-config/oracle/grants.sql), the business schema migrated from db/business-oracle, the engine's
 * ACT_* tables in the workflow schema, the reference catalog in a third. The service runs as its own JVM, as an
 * operator would start it ({@link ServiceProcess}: one Atomikos per JVM). The walk-through of the README runs to
 * PUBLISHED through the Oracle forms of the projection, the outbox, the lease and the catalog; two crashes with both
 * Oracle branches prepared are recovered, one committed and one rolled back, on each schema.
 * Needs Docker; without it JUnit reports the class as disabled ("Docker is not available").
 */
@Testcontainers(disabledWithoutDocker = true)
class OracleExternalModeTest {

    private static final String PASSWORD = "Lockstep_1";
    private static final String CATALOG_TOKEN = "oracle-it-catalog-token";
    private static final Map<String, String> SCHEMA_USERS = Map.of(
            "BUSINESS", "lockstep_business", "WORKFLOW", "lockstep_workflow");
    private static final String CATALOG_USER = "lockstep_catalog";
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @Container
    static final OracleContainer oracle = new OracleContainer("gvenzl/oracle-free:23-slim-faststart")
            .withPassword(PASSWORD);

    private final Path home = Path.of("target", "oracle-it", UUID.randomUUID().toString());

    @BeforeAll
    static void createSchemaUsersWithTheShippedGrants() throws SQLException, IOException {
        Properties sys = new Properties();
        sys.setProperty("user", "sys");
        sys.setProperty("password", PASSWORD);
        sys.setProperty("internal_logon", "sysdba");
        try (Connection connection = DriverManager.getConnection(oracle.getJdbcUrl(), sys);
                Statement sql = connection.createStatement()) {
            for (String user : List.of(SCHEMA_USERS.get("BUSINESS"), SCHEMA_USERS.get("WORKFLOW"), CATALOG_USER)) {
                sql.execute("CREATE USER " + user + " IDENTIFIED BY \"" + PASSWORD + "\""
                        + " DEFAULT TABLESPACE users QUOTA UNLIMITED ON users");
            }
            sql.execute("GRANT CREATE SESSION, CREATE TABLE, CREATE SEQUENCE TO " + CATALOG_USER);
            for (String statement : SqlScript.statements(Path.of("xa-config/oracle/grants.sql"))) {
                sql.execute(statement);
            }
        }
    }

    @Test
    void theServiceStartsOnOracleForBothDatabasesAndMigratesEach() throws Exception {
        try (ServiceProcess service = ServiceProcess.start(home, environment()).awaitUp()) {
            HttpResponse<String> health = service.get("/actuator/health", basic("ops", PASSWORD));
            assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
            JsonNode components = JSON.readTree(health.body()).path("components");
            for (String component : new String[] {"businessDb", "workflowDb", "transactionManager"}) {
                assertThat(components.path(component).path("status").asString()).as(component).isEqualTo("UP");
            }
            assertThat(components.path("businessDb").path("details").path("vendor").asString()).isEqualTo("ORACLE");

            assertThat(business().queryForObject("select count(*) from \"flyway_schema_history\""
                    + " where \"version\" = '1' and \"success\" = 1", Integer.class)).isEqualTo(1);
            assertThat(workflow().queryForObject("select count(*) from act_re_procdef", Integer.class))
                    .as("the engine deployed the approval process into the workflow schema").isPositive();
            assertThat(pendingTransactions()).as("the recovery view is readable (grants.sql) and nothing is in doubt")
                    .isZero();
        }
    }

    /** The README's first walk-through, read back with plain SQL from the three Oracle schemas. */
    @Test
    void theReadmeWalkThroughRunsToPublishedWithOracleAsBothDatabases() throws Exception {
        try (ServiceProcess service = ServiceProcess.start(home, environment()).awaitUp()) {
            long application = draft(service);
            assertThat(service.post("/api/applications/" + application + "/submit", basic("alice", PASSWORD), null)
                    .statusCode()).isEqualTo(200);
            for (String approver : List.of("bob", "frank")) {
                String task = firstTodo(service, approver);
                HttpResponse<String> approved = service.post("/api/tasks/" + task + "/complete", basic(approver, PASSWORD),
                        "{\"decision\":\"APPROVE\",\"comment\":\"fine by me\"}");
                assertThat(approved.statusCode()).as(approved.body()).isEqualTo(200);
            }

            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(business().queryForObject(
                    "select publish_status from application where id = ?", String.class, application)).isEqualTo("PUBLISHED"));
            assertThat(business().queryForObject("select approval_status from application where id = ?", String.class, application))
                    .isEqualTo("APPROVED");
            assertThat(business().queryForList("select state from task_projection where application_id = ?", String.class,
                    application)).containsExactly("COMPLETED", "COMPLETED");
            assertThat(business().queryForObject("select count(*) from task_offer", Integer.class))
                    .as("no offer outlives its task on Oracle either").isZero();
            assertThat(workflow().queryForObject("select count(*) from act_hi_procinst where business_key_ = ?"
                    + " and end_time_ is not null", Integer.class, Long.toString(application))).isEqualTo(1);
            assertThat(new JdbcTemplate(new DriverManagerDataSource(oracle.getJdbcUrl(), CATALOG_USER, PASSWORD))
                    .queryForObject("select count(*) from published_asset where application_id = ?", Integer.class,
                            application)).isEqualTo(1);
            assertThat(pendingTransactions()).isZero();
        }
    }

    /** After: recovery commits both branches. Before: it presumes abort and rolls both back. */
    @ParameterizedTest(name = "halted {0} the submit's commit decision is logged")
    @CsvSource({"after, APPROVING, 1", "before, DRAFT, 0"})
    void aCrashAtTheCommitDecisionIsResolvedOnBothOracleSchemasByRecovery(String when, String status, int started)
            throws Exception {
        long application = crashASubmit(when);
        assertThat(business().queryForObject("select approval_status from application where id = ?", String.class,
                application)).isEqualTo(status);
        assertThat(workflow().queryForObject("select count(*) from act_hi_procinst where business_key_ = ?",
                Integer.class, Long.toString(application))).isEqualTo(started);
        assertThat(business().queryForObject("select count(*) from task_projection where application_id = ?"
                + " and state = 'OPEN'", Integer.class, application)).isEqualTo(started);
    }

    /**
     * Halts the service at the submit's commit decision ({@code when}: before or after it is logged), checks that
     * Oracle holds the prepared branches, restarts the service on the same coordinator log and waits until recovery
     * has resolved them; the application's id.
     */
    private long crashASubmit(String when) throws Exception {
        Files.createDirectories(home);
        Path arm = home.resolve("armed").toAbsolutePath();
        Path rules = Files.writeString(home.resolve("halt.btm"), Files.readString(
                Path.of("src/test/resources/oracle/halt-at-commit-decision.btm")).replace("@ARM@", arm.toString()));
        long application;
        try (ServiceProcess service = ServiceProcess.start(home, environment(),
                List.of(SecondNode.bytemanAgent(rules))).awaitUp()) {
            application = draft(service);
            Files.createFile(Path.of(arm + "." + when));
            try {
                service.post("/api/applications/" + application + "/submit", basic("alice", PASSWORD), null);
            } catch (UncheckedIOException halted) {
                // the JVM halted inside the commit: no answer
            }
            assertThat(service.awaitExit()).as(service.output()).isEqualTo(1);
            assertThat(service.output()).contains("ORACLE-IT halt " + when);
        }
        assertThat(pendingTransactions()).as("the submit's branches are prepared and in doubt").isPositive();
        try (ServiceProcess restarted = ServiceProcess.start(home, environment()).awaitUp()) {
            await().atMost(Duration.ofMinutes(2)).untilAsserted(() -> assertThat(pendingTransactions()).isZero());
        }
        return application;
    }

    private static long draft(ServiceProcess service) throws IOException {
        HttpResponse<String> created = service.post("/api/applications", basic("alice", PASSWORD),
                "{\"title\":\"Publish asset 42\",\"assetId\":42,\"amount\":1200.50,\"riskLevel\":\"LOW\",\"sensitive\":false}");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        return JSON.readTree(created.body()).path("id").asLong();
    }

    private static String firstTodo(ServiceProcess service, String user) {
        HttpResponse<String> todo = service.get("/api/tasks", basic(user, PASSWORD));
        assertThat(todo.statusCode()).as(todo.body()).isEqualTo(200);
        JsonNode items = JSON.readTree(todo.body()).path("items");
        assertThat(items.size()).as(user + "'s todo list: " + todo.body()).isEqualTo(1);
        return items.get(0).path("id").asString();
    }

    /** External mode on the container's three schemas, with the README's users (external mode has no demo users). */
    private static Map<String, String> environment() {
        Map<String, String> environment = new HashMap<>();
        environment.put("LOCKSTEP_MODE", "external");
        environment.put("LOCKSTEP_TM_UNIQUE_NAME", "oracle-it.tm");
        environment.put("LOCKSTEP_TM_PROPERTIES_FILE", "xa-config/atomikos/transactions-test.properties");
        SCHEMA_USERS.forEach((database, user) -> database(environment, "LOCKSTEP_DB_" + database + "_", user));
        database(environment, "LOCKSTEP_CATALOG_DB_", CATALOG_USER);
        environment.put("LOCKSTEP_CATALOG_TOKEN", CATALOG_TOKEN);
        String[][] users = {{"ops", "ADMIN", ""}, {"alice", "APPLICANT", ""}, {"bob", "APPROVER", "managers"},
                {"frank", "APPROVER", "directors"}};
        for (int index = 0; index < users.length; index++) {
            String prefix = "LOCKSTEP_SECURITY_USERS_" + index + "_";
            environment.put(prefix + "NAME", users[index][0]);
            environment.put(prefix + "PASSWORD", "{noop}" + PASSWORD);
            environment.put(prefix + "ROLES", users[index][1]);
            if (!users[index][2].isEmpty()) {
                environment.put(prefix + "GROUPS", users[index][2]);
            }
        }
        return environment;
    }

    private static void database(Map<String, String> environment, String prefix, String user) {
        environment.put(prefix + "URL", oracle.getJdbcUrl());
        environment.put(prefix + "USERNAME", user);
        environment.put(prefix + "PASSWORD", PASSWORD);
        environment.put(prefix + "VENDOR", "oracle");
    }

    private static int pendingTransactions() {
        return business().queryForObject("select count(*) from sys.dba_pending_transactions", Integer.class);
    }

    private static JdbcTemplate business() {
        return new JdbcTemplate(new DriverManagerDataSource(oracle.getJdbcUrl(), SCHEMA_USERS.get("BUSINESS"), PASSWORD));
    }

    private static JdbcTemplate workflow() {
        return new JdbcTemplate(new DriverManagerDataSource(oracle.getJdbcUrl(), SCHEMA_USERS.get("WORKFLOW"), PASSWORD));
    }
}
