package dev.lockstep.platform;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.lockstep.support.UseCaseIntegrationTest;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationContext;

/**
 * Issue 29, item 6: every connection pool of the running service — the cluster scheduler's and the publisher's too —
 * hands out connections whose waits are bounded, asked of the database itself rather than of the pool's settings.
 */
class BoundedPoolsTest extends UseCaseIntegrationTest {

    @Autowired
    ApplicationContext context;

    @Test
    void everyPoolsSessionsCarryTheLockAndStatementTimeoutAndItsSocketsTheSocketTimeout() throws Exception {
        Map<String, HikariDataSource> pools = context.getBeansOfType(HikariDataSource.class);
        assertThat(pools).containsKeys("schedulerDataSource", "recoveryBusinessDataSource");

        for (Map.Entry<String, HikariDataSource> pool : pools.entrySet()) {
            try (Connection connection = pool.getValue().getConnection()) {
                assertThat(show(connection, "lock_timeout")).as(pool.getKey() + " lock_timeout").isEqualTo("5s");
                assertThat(show(connection, "statement_timeout")).as(pool.getKey() + " statement_timeout").isEqualTo("30s");
                assertThat(connection.getNetworkTimeout()).as(pool.getKey() + " socket timeout (ms)").isEqualTo(40_000);
            }
        }
    }

    private static String show(Connection connection, String setting) throws Exception {
        try (Statement statement = connection.createStatement(); ResultSet row = statement.executeQuery("show " + setting)) {
            row.next();
            return row.getString(1);
        }
    }
}
