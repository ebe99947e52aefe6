package dev.lockstep.platform;

import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * How to reach one of the two databases. {@code xaDataSourceClass} is optional: it defaults to the
 * vendor's XA DataSource and exists so that a misconfigured non-XA class is caught at startup.
 */
public record DatabaseSettings(
        String url,
        String username,
        String password,
        DatabaseVendor vendor,
        Integer poolSize,
        String xaDataSourceClass) {

    public static final int DEFAULT_POOL_SIZE = 10;

    public DatabaseSettings {
        if (vendor == null) {
            vendor = DatabaseVendor.POSTGRESQL;
        }
        if (poolSize == null) {
            poolSize = DEFAULT_POOL_SIZE;
        }
        if (xaDataSourceClass == null || xaDataSourceClass.isBlank()) {
            xaDataSourceClass = vendor.defaultXaDataSourceClass();
        }
    }

    public boolean isConfigured() {
        return url != null && !url.isBlank();
    }

    public DatabaseSettings withConnection(String newUrl, String newUsername, String newPassword) {
        return new DatabaseSettings(newUrl, newUsername, newPassword, vendor, poolSize, xaDataSourceClass);
    }

    /** A plain, non-XA view of this database for inspection and schema work outside any transaction. */
    public DataSource plainDataSource() {
        return new DriverManagerDataSource(url, username, password);
    }
}
