package dev.lockstep.operations;

import com.atomikos.jdbc.AtomikosDataSourceBean;
import dev.lockstep.xa.DatabaseSettings;
import dev.lockstep.xa.XaConfiguration;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * Health of one XA resource: reachable over a plain connection of its own (a check must not borrow
 * from the XA pool it reports on, nor run inside a global transaction), with the pool's size and
 * the number of prepared branches the database holds right now. Prepared branches are normal for
 * the instant between prepare and commit; a count that stays up means in-doubt transactions.
 */
class XaResourceHealthIndicator implements HealthIndicator {

    private static final Pattern URL_PASSWORD = Pattern.compile("(?i)(password=)[^&;]*");
    private static final Pattern ORACLE_CREDENTIALS = Pattern.compile("(?i)(jdbc:oracle:thin:[^/@]*)/[^@]*@");

    private final DatabaseSettings settings;
    private final AtomikosDataSourceBean pool;
    private final DataSource plain;

    XaResourceHealthIndicator(DatabaseSettings settings, AtomikosDataSourceBean pool) {
        this.settings = settings;
        this.pool = pool;
        this.plain = XaConfiguration.plainDataSource(settings);
    }

    @Override
    public Health health() {
        Health.Builder health = Health.unknown()
                .withDetail("resource", pool.getUniqueResourceName())
                .withDetail("vendor", settings.vendor())
                .withDetail("url", withoutPassword(settings.url()))
                .withDetail("poolTotal", pool.poolTotalSize())
                .withDetail("poolAvailable", pool.poolAvailableSize());
        try (Connection connection = plain.getConnection(); Statement statement = connection.createStatement();
                ResultSet count = statement.executeQuery(preparedBranchesQuery())) {
            count.next();
            return health.up().withDetail("preparedTransactions", count.getLong(1)).build();
        } catch (SQLException e) {
            return health.down(e).build();
        }
    }

    private String preparedBranchesQuery() {
        return switch (settings.vendor()) {
            case POSTGRESQL -> "select count(*) from pg_prepared_xacts where database = current_database()";
            // Readable by the schema user through xa-config/oracle/grants.sql.
            case ORACLE -> "select count(*) from sys.dba_pending_transactions";
        };
    }

    static String withoutPassword(String url) {
        String masked = URL_PASSWORD.matcher(url).replaceAll("$1******");
        return ORACLE_CREDENTIALS.matcher(masked).replaceAll("$1/******@");
    }
}
