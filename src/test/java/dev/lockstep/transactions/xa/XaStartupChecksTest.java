package dev.lockstep.transactions.xa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.lockstep.LockstepApplication;
import dev.lockstep.platform.StartupCheckFailure;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Each misconfiguration stops the service before the transaction manager starts, naming the setting.
 * The service runs in external mode against PostgreSQL servers this test starts: one set up right,
 * one with prepared transactions disabled, one with fewer prepared-transaction slots than the pool.
 */
class XaStartupChecksTest {

    private static EmbeddedPostgres healthy;
    private static EmbeddedPostgres preparedTransactionsDisabled;
    private static EmbeddedPostgres fewPreparedTransactions;

    @TempDir
    Path home;

    @BeforeAll
    static void startServers() throws IOException {
        healthy = server("64");
        preparedTransactionsDisabled = server("0");
        fewPreparedTransactions = server("5");
        for (EmbeddedPostgres server : new EmbeddedPostgres[] {healthy, preparedTransactionsDisabled, fewPreparedTransactions}) {
            JdbcTemplate sql = new JdbcTemplate(server.getPostgresDatabase());
            sql.execute("create database business");
            sql.execute("create database workflow");
        }
    }

    @AfterAll
    static void stopServers() throws IOException {
        for (EmbeddedPostgres server : new EmbeddedPostgres[] {healthy, preparedTransactionsDisabled, fewPreparedTransactions}) {
            if (server != null) {
                server.close();
            }
        }
    }

    private static EmbeddedPostgres server(String maxPreparedTransactions) throws IOException {
        return EmbeddedPostgres.builder().setServerConfig("max_prepared_transactions", maxPreparedTransactions).start();
    }

    @Test
    void preparedTransactionsDisabledOnTheBusinessDatabase() {
        StartupCheckFailure failure = startupFailure(Map.of(
                "lockstep.db.business.url", preparedTransactionsDisabled.getJdbcUrl("postgres", "business")));

        assertThat(failure.setting()).isEqualTo("lockstep.db.business.url");
        assertThat(failure).hasMessageContaining("has max_prepared_transactions = 0, so prepared transactions")
                .hasMessageContaining("Fix: set max_prepared_transactions to at least 10");
    }

    @Test
    void fewerPreparedTransactionsThanThePoolSizeOnTheWorkflowDatabase() {
        StartupCheckFailure failure = startupFailure(Map.of(
                "lockstep.db.workflow.url", fewPreparedTransactions.getJdbcUrl("postgres", "workflow")));

        assertThat(failure.setting()).isEqualTo("lockstep.db.workflow.url");
        assertThat(failure).hasMessageContaining("max_prepared_transactions = 5, below lockstep.db.workflow.pool-size = 10")
                .hasMessageContaining("or lower lockstep.db.workflow.pool-size");
    }

    /** The same database spelled differently (127.0.0.1 instead of localhost) is still the same database. */
    @Test
    void bothUrlsPointingAtOneDatabase() {
        StartupCheckFailure failure = startupFailure(Map.of(
                "lockstep.db.workflow.url", healthy.getJdbcUrl("postgres", "business").replace("localhost", "127.0.0.1")));

        assertThat(failure.setting()).isEqualTo("lockstep.db.workflow.url");
        assertThat(failure).hasMessageContaining("points at the same database as lockstep.db.business.url");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "''                                         | is missing",
            "a-name-of-forty-one-bytes-is-too-long1.tm  | is 41 bytes",
            "node1                                      | could be a prefix of another node's name"})
    void transactionManagerNameMissingTooLongOrPrefixCapable(String name, String problem) {
        StartupCheckFailure failure = startupFailure(Map.of("lockstep.tm.unique-name", name));

        assertThat(failure.setting()).isEqualTo("lockstep.tm.unique-name");
        assertThat(failure).hasMessageContaining(problem);
    }

    @Test
    void aDataSourceClassThatIsNotXa() {
        StartupCheckFailure failure = startupFailure(Map.of(
                "lockstep.db.business.xa-data-source-class", "org.postgresql.ds.PGSimpleDataSource"));

        assertThat(failure.setting()).isEqualTo("lockstep.db.business.xa-data-source-class");
        assertThat(failure).hasMessageContaining("org.postgresql.ds.PGSimpleDataSource is not an XA DataSource")
                .hasMessageContaining("remove the setting to use org.postgresql.xa.PGXADataSource");
    }

    @Test
    void aMissingUrlInExternalMode() {
        StartupCheckFailure failure = startupFailure(Map.of("lockstep.db.workflow.url", ""));

        assertThat(failure.setting()).isEqualTo("lockstep.db.workflow.url");
        assertThat(failure).hasMessageContaining("is not set, and lockstep.mode=external needs both databases")
                .hasMessageContaining("LOCKSTEP_DB_WORKFLOW_URL");
    }

    @Test
    void externalModeWithoutAConfiguredLogDirectory() {
        Map<String, String> unset = new HashMap<>();
        unset.put("lockstep.tm.log", "file");
        unset.put("lockstep.tm.log-dir", null);

        StartupCheckFailure failure = startupFailure(unset);

        assertThat(failure.setting()).isEqualTo("lockstep.tm.log-dir");
        assertThat(failure).hasMessageContaining("is not set").hasMessageContaining("LOCKSTEP_TM_LOG_DIR")
                .hasMessageContaining("absolute directory on persistent storage");
    }

    @Test
    void anUnknownCoordinatorLogStore() {
        StartupCheckFailure failure = startupFailure(Map.of("lockstep.tm.log", "cloud"));

        assertThat(failure.setting()).isEqualTo("lockstep.tm.log");
        assertThat(failure).hasMessageContaining("is 'cloud'").hasMessageContaining("LOCKSTEP_TM_LOG")
                .hasMessageContaining("file or database");
    }

    /** The database log needs no directory: the check that follows it (the missing URL) is the one that stops. */
    @Test
    void theDatabaseLogNeedsNoLogDirectory() {
        Map<String, String> overrides = new HashMap<>();
        overrides.put("lockstep.tm.log", "database");
        overrides.put("lockstep.tm.log-dir", null);
        overrides.put("lockstep.db.workflow.url", "");

        assertThat(startupFailure(overrides).setting()).isEqualTo("lockstep.db.workflow.url");
    }

    /**
     * A node whose file log still holds a commit decision is not switched to the database log: the table could not
     * tell recovery about it, and the branches would be presumed aborted while a sibling may have committed.
     */
    @Test
    void aSwitchToTheDatabaseLogIsRefusedWhileTheFileLogHoldsADecision() throws Exception {
        Path logDir = Files.createDirectories(home.resolve("atomikos"));
        Files.writeString(logDir.resolve("lockstep-tm1.log"), "startup-checks.tm170000000000000017|COMMITTING|"
                + (System.currentTimeMillis() + 3_600_000) + "|startup-checks.tm|\n");

        StartupCheckFailure failure = startupFailure(Map.of("lockstep.tm.log", "database"), false);

        assertThat(failure.setting()).isEqualTo("lockstep.tm.log");
        assertThat(failure).hasMessageContaining("the file log (" + logDir.toAbsolutePath())
                .hasMessageContaining("still holds 1 unfinished decision(s) of this node, e.g. startup-checks.tm170000000000000017")
                .hasMessageContaining("lockstep.tm.log=file");
    }

    /** External mode keeps its coordinator log in the database unless told otherwise: no directory is asked for. */
    @Test
    void externalModeDefaultsToTheDatabaseLog() {
        Map<String, String> overrides = new HashMap<>();
        overrides.put("lockstep.tm.log-dir", null);
        overrides.put("lockstep.db.workflow.url", "");

        assertThat(startupFailure(overrides).setting()).isEqualTo("lockstep.db.workflow.url");
    }

    @Test
    void externalModeWithARelativeLogDirectory() {
        StartupCheckFailure failure = startupFailure(Map.of("lockstep.tm.log", "file", "lockstep.tm.log-dir", "var/atomikos"));

        assertThat(failure.setting()).isEqualTo("lockstep.tm.log-dir");
        assertThat(failure).hasMessageContaining("is the relative path var/atomikos");
    }

    /**
     * A catalog run by the service in external mode is reachable by others: it needs its token (issue 29). Checked when
     * the catalog's beans are made, after the transaction manager has started: nothing XA is at stake in it.
     */
    @Test
    void externalModeWithTheCatalogInProcessButNoToken() {
        StartupCheckFailure failure = startupFailure(Map.of(
                "lockstep.catalog.db.url", healthy.getJdbcUrl("postgres", "postgres"),
                "lockstep.catalog.db.username", "postgres"), false);

        assertThat(failure.setting()).isEqualTo("lockstep.catalog.token");
        assertThat(failure).hasMessageContaining("is not set").hasMessageContaining("LOCKSTEP_CATALOG_TOKEN")
                .hasMessageContaining("lockstep.publish.catalog-token");
    }

    @ParameterizedTest
    @CsvSource({
            "lockstep.db.business.lock-timeout, 0s, it must be positive",
            "lockstep.db.workflow.statement-timeout, -1s, it must be positive",
            "lockstep.db.business.lock-timeout, 30s, not below lockstep.db.business.statement-timeout",
            "lockstep.db.workflow.socket-timeout, 30s, not above lockstep.db.workflow.statement-timeout"})
    void timeoutsThatCannotWork(String setting, String value, String problem) {
        StartupCheckFailure failure = startupFailure(Map.of(setting, value));

        assertThat(failure.setting()).isEqualTo(setting);
        assertThat(failure).hasMessageContaining(problem).hasMessageContaining("Fix:");
    }

    /**
     * Starts the service on a correct external configuration changed by {@code overrides} (a null value
     * removes the setting); it must not come up.
     */
    private StartupCheckFailure startupFailure(Map<String, String> overrides) {
        return startupFailure(overrides, true);
    }

    /** {@code beforeAtomikos}: the check must stop the startup before the transaction manager writes its log. */
    private StartupCheckFailure startupFailure(Map<String, String> overrides, boolean beforeAtomikos) {
        Map<String, Object> properties = new HashMap<>(Map.of(
                "lockstep.mode", "external",
                "lockstep.home", home.toString(),
                "lockstep.tm.log-dir", home.resolve("atomikos").toAbsolutePath().toString(),
                "lockstep.tm.unique-name", "startup-checks.tm",
                "lockstep.db.business.url", healthy.getJdbcUrl("postgres", "business"),
                "lockstep.db.business.username", "postgres",
                "lockstep.db.workflow.url", healthy.getJdbcUrl("postgres", "workflow"),
                "lockstep.db.workflow.username", "postgres",
                "spring.main.banner-mode", "off"));
        overrides.forEach((name, value) -> {
            if (value == null) {
                properties.remove(name);
            } else {
                properties.put(name, value);
            }
        });

        Throwable thrown = catchThrowable(() -> new SpringApplicationBuilder(LockstepApplication.class)
                .web(WebApplicationType.NONE).properties(properties).run().close());

        assertThat(thrown).as("the service must refuse to start").isNotNull();
        Throwable cause = thrown;
        while (cause != null && !(cause instanceof StartupCheckFailure)) {
            cause = cause.getCause();
        }
        assertThat(cause).as("a StartupCheckFailure in %s", thrown).isInstanceOf(StartupCheckFailure.class);
        if (beforeAtomikos) {
            assertThat(home.resolve("atomikos")).as("the checks run before Atomikos starts and writes its log").doesNotExist();
        }
        return (StartupCheckFailure) cause;
    }
}
