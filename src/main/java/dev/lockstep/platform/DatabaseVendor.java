package dev.lockstep.platform;

/** The database products Lockstep can run its two XA resources on. */
public enum DatabaseVendor {
    POSTGRESQL("org.postgresql.xa.PGXADataSource", "select 1"),
    ORACLE("oracle.jdbc.xa.client.OracleXADataSource", "select 1 from dual");

    private final String defaultXaDataSourceClass;
    private final String validationQuery;

    DatabaseVendor(String defaultXaDataSourceClass, String validationQuery) {
        this.defaultXaDataSourceClass = defaultXaDataSourceClass;
        this.validationQuery = validationQuery;
    }

    /** The cheapest statement that proves a pooled connection still reaches its server. */
    public String validationQuery() {
        return validationQuery;
    }

    public String defaultXaDataSourceClass() {
        return defaultXaDataSourceClass;
    }
}
