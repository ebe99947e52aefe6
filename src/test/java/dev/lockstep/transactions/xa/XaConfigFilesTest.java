package dev.lockstep.transactions.xa;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.platform.DatabaseSettings;
import dev.lockstep.platform.DatabaseVendor;
import dev.lockstep.platform.LockstepProperties;
import dev.lockstep.platform.TestProperties;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.jdbc.core.JdbcTemplate;

/** The deployable files in xa-config/ mean what they say: they bind, load and take effect. */
class XaConfigFilesTest {

    private static final Path XA_CONFIG = Path.of("xa-config");

    @TempDir
    Path home;

    @Test
    void everyVariableOfTheExampleEnvFileBindsToALockstepProperty() throws IOException {
        Map<String, Object> environment = new LinkedHashMap<>();
        for (String line : Files.readAllLines(XA_CONFIG.resolve("env/lockstep-external.env.example"))) {
            if (!line.isBlank() && !line.startsWith("#")) {
                environment.put(line.substring(0, line.indexOf('=')), line.substring(line.indexOf('=') + 1));
            }
        }
        MutablePropertySources sources = new MutablePropertySources();
        sources.addFirst(new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, environment));
        LockstepProperties bound = new Binder(ConfigurationPropertySources.from(sources))
                .bindOrCreate("lockstep", LockstepProperties.class);

        assertThat(environment.keySet()).containsExactly("LOCKSTEP_MODE", "LOCKSTEP_HOME", "LOCKSTEP_TM_LOG_DIR",
                "LOCKSTEP_DB_BUSINESS_URL", "LOCKSTEP_DB_BUSINESS_USERNAME", "LOCKSTEP_DB_BUSINESS_PASSWORD",
                "LOCKSTEP_DB_BUSINESS_VENDOR", "LOCKSTEP_DB_BUSINESS_POOL_SIZE",
                "LOCKSTEP_DB_WORKFLOW_URL", "LOCKSTEP_DB_WORKFLOW_USERNAME", "LOCKSTEP_DB_WORKFLOW_PASSWORD",
                "LOCKSTEP_DB_WORKFLOW_VENDOR", "LOCKSTEP_DB_WORKFLOW_POOL_SIZE",
                "LOCKSTEP_TM_UNIQUE_NAME", "LOCKSTEP_TM_PROPERTIES_FILE", "LOCKSTEP_TM_DEFAULT_TIMEOUT",
                "LOCKSTEP_TM_MAX_TIMEOUT", "LOCKSTEP_TM_RECOVERY_DELAY", "LOCKSTEP_TM_PARALLEL_COMMIT",
                "LOGGING_STRUCTURED_FORMAT_CONSOLE");
        assertThat(bound.mode()).isEqualTo(LockstepProperties.Mode.EXTERNAL);
        assertThat(bound.home()).isEqualTo(Path.of(environment.get("LOCKSTEP_HOME").toString()));
        for (String database : List.of("BUSINESS", "WORKFLOW")) {
            DatabaseSettings settings = database.equals("BUSINESS") ? bound.db().business() : bound.db().workflow();
            String prefix = "LOCKSTEP_DB_" + database + "_";
            assertThat(settings.url()).isEqualTo(environment.get(prefix + "URL"));
            assertThat(settings.username()).isEqualTo(environment.get(prefix + "USERNAME"));
            assertThat(settings.password()).isEqualTo(environment.get(prefix + "PASSWORD"));
            assertThat(settings.vendor()).isEqualTo(DatabaseVendor.POSTGRESQL);
            assertThat(settings.poolSize()).isEqualTo(Integer.valueOf(environment.get(prefix + "POOL_SIZE").toString()));
        }
        assertThat(TransactionManagerName.validate(bound.tm().uniqueName())).isEqualTo(environment.get("LOCKSTEP_TM_UNIQUE_NAME"));
        assertThat(bound.tm().propertiesFile()).isRegularFile();
        assertThat(bound.tm().defaultTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(bound.tm().maxTimeout()).isEqualTo(Duration.ofMinutes(5));
        assertThat(bound.tm().recoveryDelay()).isEqualTo(Duration.ofSeconds(30));
        assertThat(bound.tm().parallelCommit()).isTrue();
    }

    /** Each key is one Atomikos knows, and none is one Lockstep sets itself (which would be silently ignored). */
    @ParameterizedTest
    @ValueSource(strings = {"dev", "test", "prod"})
    void eachAtomikosFileTakesEffectAsWritten(String environment) throws IOException {
        Path file = XA_CONFIG.resolve("atomikos/transactions-" + environment + ".properties");
        Properties written = load(Files.newBufferedReader(file));
        Properties atomikosKeys;
        try (InputStream defaults = getClass().getResourceAsStream("/transactions-defaults.properties")) {
            atomikosKeys = new Properties();
            atomikosKeys.load(defaults);
        }

        Properties effective = AtomikosSettings.of(TestProperties.embeddedAt(home,
                Map.of("lockstep.tm.properties-file", file.toString())));

        assertThat(written).isNotEmpty();
        written.forEach((key, value) -> {
            assertThat(atomikosKeys).as("%s in %s", key, file).containsKey(key);
            assertThat(effective).as("%s in %s", key, file).containsEntry(key, value);
        });
    }

    /** The fragment is valid for the PostgreSQL the embedded default runs, and enough for the default pool. */
    @Test
    void thePostgresqlFragmentIsAcceptedAndEnablesPreparedTransactions() throws IOException {
        Map<String, String> settings = new LinkedHashMap<>();
        try (Stream<String> lines = Files.lines(XA_CONFIG.resolve("postgresql/xa.conf"))) {
            lines.map(String::strip).filter(line -> !line.isEmpty() && !line.startsWith("#"))
                    .forEach(line -> settings.put(line.substring(0, line.indexOf('=')).strip(),
                            line.substring(line.indexOf('=') + 1).strip()));
        }
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder();
        settings.forEach(builder::setServerConfig);

        try (EmbeddedPostgres server = builder.start()) {
            JdbcTemplate sql = new JdbcTemplate(server.getPostgresDatabase());
            settings.forEach((name, value) ->
                    assertThat(sql.queryForObject("show " + name, String.class)).as(name).isEqualTo(value));
            assertThat(Integer.parseInt(settings.get("max_prepared_transactions")))
                    .isGreaterThanOrEqualTo(DatabaseSettings.DEFAULT_POOL_SIZE);
        }
    }

    @Test
    void theOracleGrantsGiveBothUsersWhatXaRecoveryNeeds() throws IOException {
        List<String> statements = SqlScript.statements(XA_CONFIG.resolve("oracle/grants.sql"));

        for (String user : List.of("lockstep_business", "lockstep_workflow")) {
            assertThat(statements).as(user).contains(
                    "GRANT EXECUTE ON sys.dbms_xa TO " + user,
                    "GRANT SELECT ON sys.dba_pending_transactions TO " + user,
                    "GRANT SELECT ON sys.pending_trans$ TO " + user,
                    "GRANT SELECT ON sys.dba_2pc_pending TO " + user,
                    "GRANT SELECT ON sys.dba_2pc_neighbors TO " + user,
                    "GRANT FORCE ANY TRANSACTION TO " + user);
        }
    }

    private static Properties load(Reader reader) throws IOException {
        try (reader) {
            Properties properties = new Properties();
            properties.load(reader);
            return properties;
        }
    }
}
