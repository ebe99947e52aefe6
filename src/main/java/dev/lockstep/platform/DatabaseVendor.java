package dev.lockstep.platform;

/** The database products Lockstep can run its two XA resources on. */
@AreaApi
public enum DatabaseVendor {
    POSTGRESQL("org.postgresql.xa.PGXADataSource"),
    ORACLE("oracle.jdbc.xa.client.OracleXADataSource");

    private final String defaultXaDataSourceClass;

    DatabaseVendor(String defaultXaDataSourceClass) {
        this.defaultXaDataSourceClass = defaultXaDataSourceClass;
    }

    public String defaultXaDataSourceClass() {
        return defaultXaDataSourceClass;
    }
}
