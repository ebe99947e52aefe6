package dev.lockstep.platform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 29, item 6: startup refuses a pool bean whose connections lack a bound, naming the setting that is not applied
 * to it. The pools are configured, never started: the check reads what their connections would be opened with.
 */
class BoundedPoolCheckTest {

    private final DatabaseSettings business = DatabaseSettings.unset()
            .withConnection("jdbc:postgresql://db.example:5432/lockstep", "lockstep", "secret");
    private final DatabaseSettings workflow = DatabaseSettings.unset()
            .withConnection("jdbc:postgresql://db.example:5432/lockstep_workflow", "lockstep", "secret");
    private final DatabaseEndpoints endpoints = new DatabaseEndpoints(business, workflow);

    @Test
    void aPoolBuiltWithoutTheDatabasesTimeoutsIsRefusedNamingTheSetting() {
        // how the publisher's and the cluster scheduler's pools were built before
        HikariConfig bare = new HikariConfig();
        bare.setPoolName("cluster-scheduler");
        bare.setJdbcUrl(business.url());

        StartupCheckFailure refused = refusal(Map.of("schedulerDataSource", unstarted(bare)));

        assertThat(refused.setting()).isEqualTo("lockstep.db.business.lock-timeout");
        assertThat(refused.getMessage()).contains("'cluster-scheduler'", "schedulerDataSource");
        assertThat(refused.fix()).contains("DatabaseSettings.plainPool");
    }

    @Test
    void replacingTheSessionOptionsOrDroppingTheSocketTimeoutIsRefusedToo() {
        HikariConfig ownOptions = workflow.plainPool("reconciliation-workflow", 2);
        ownOptions.addDataSourceProperty("options", "-c default_transaction_read_only=on");
        HikariConfig unboundedStatements = business.plainPool("recovery-business", 4);
        unboundedStatements.addDataSourceProperty("options", "-c lock_timeout=5000 -c statement_timeout=0");
        HikariConfig noSocketTimeout = business.plainPool("publish-business", 4);
        noSocketTimeout.getDataSourceProperties().remove("socketTimeout");

        assertThat(refusal(Map.of("a", unstarted(ownOptions))).setting()).isEqualTo("lockstep.db.workflow.lock-timeout");
        assertThat(refusal(Map.of("b", unstarted(unboundedStatements))).setting())
                .isEqualTo("lockstep.db.business.statement-timeout");
        assertThat(refusal(Map.of("c", unstarted(noSocketTimeout))).setting()).isEqualTo("lockstep.db.business.socket-timeout");
    }

    @Test
    void poolsFromPlainPoolPassOnEitherVendor() {
        HikariConfig readOnly = workflow.plainPool("reconciliation-workflow", 2);
        readOnly.addDataSourceProperty("readOnlyMode", "always");
        DatabaseSettings oracle = new DatabaseSettings("jdbc:oracle:thin:@//db.example:1521/LOCKSTEP", "lockstep", "secret",
                DatabaseVendor.ORACLE, null, null, null, null, null, null);
        HikariConfig oracleWithoutReadTimeout = oracle.plainPool("publish-business", 4);
        oracleWithoutReadTimeout.getDataSourceProperties().remove("oracle.jdbc.ReadTimeout");

        assertThatCode(() -> BoundedPoolCheck.verify(Map.of("a", unstarted(business.plainPool("publish-business", 4)),
                "b", unstarted(readOnly), "c", unstarted(oracle.plainPool("cluster-scheduler", 3))), endpoints))
                .doesNotThrowAnyException();
        assertThat(refusal(Map.of("d", unstarted(oracleWithoutReadTimeout))).setting()).isEqualTo("lockstep.db.<db>.socket-timeout");
    }

    private StartupCheckFailure refusal(Map<String, HikariDataSource> pools) {
        return catchThrowableOfType(StartupCheckFailure.class, () -> BoundedPoolCheck.verify(pools, endpoints));
    }

    /** A pool with {@code config}'s settings that has opened nothing yet. */
    private static HikariDataSource unstarted(HikariConfig config) {
        HikariDataSource pool = new HikariDataSource();
        config.copyStateTo(pool);
        return pool;
    }
}
