package dev.lockstep.transactions.monitoring;

import java.sql.SQLException;
import java.util.regex.Pattern;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * Health of one XA resource: the database answers, with the pool's size and the number of prepared
 * branches it holds. The details stay when it is down, so the operator sees which database and URL.
 */
class XaResourceHealthIndicator implements HealthIndicator {

    private static final Pattern URL_PASSWORD = Pattern.compile("(?i)(password=)[^&;]*");
    private static final Pattern ORACLE_CREDENTIALS = Pattern.compile("(?i)(jdbc:oracle:thin:[^/@]*)/[^@]*@");

    private final MonitoredXaPool resource;

    XaResourceHealthIndicator(MonitoredXaPool resource) {
        this.resource = resource;
    }

    @Override
    public Health health() {
        Health.Builder health = Health.unknown()
                .withDetail("resource", resource.name())
                .withDetail("vendor", resource.settings().vendor())
                .withDetail("url", withoutPassword(resource.settings().url()))
                .withDetail("poolTotal", resource.pool().totalSize())
                .withDetail("poolAvailable", resource.pool().availableSize());
        try {
            return health.up().withDetail("preparedTransactions", resource.preparedTransactions()).build();
        } catch (SQLException e) {
            return health.down(e).build();
        }
    }

    static String withoutPassword(String url) {
        String masked = URL_PASSWORD.matcher(url).replaceAll("$1******");
        return ORACLE_CREDENTIALS.matcher(masked).replaceAll("$1/******@");
    }
}
