package dev.lockstep.xa;

import com.atomikos.jdbc.AtomikosDataSourceBean;
import dev.lockstep.platform.DatabaseSettings;
import dev.lockstep.platform.StartupCheckFailure;
import java.util.Properties;
import javax.sql.XADataSource;
import org.springframework.beans.BeanWrapperImpl;

/** Builds vendor XA DataSources from settings and wraps them in Atomikos pools. */
public class XaDataSourceFactory {

    /** Creates the driver's XA DataSource; refuses a class that is not one. */
    public XADataSource create(String prefix, DatabaseSettings settings) {
        Object instance = instantiate(prefix, settings.xaDataSourceClass());
        if (!(instance instanceof XADataSource xaDataSource)) {
            throw new StartupCheckFailure(prefix + ".xa-data-source-class",
                    settings.xaDataSourceClass() + " is not an XA DataSource (javax.sql.XADataSource), so this database"
                            + " could not take part in two-phase commit.",
                    "remove the setting to use " + settings.vendor().defaultXaDataSourceClass() + ", or name the driver's"
                            + " XA class.");
        }
        BeanWrapperImpl properties = new BeanWrapperImpl(instance);
        properties.setPropertyValue(properties.isWritableProperty("url") ? "url" : "URL", settings.url());
        properties.setPropertyValue("user", settings.username());
        properties.setPropertyValue("password", settings.password() == null ? "" : settings.password());
        applyTimeouts(properties, settings);
        return xaDataSource;
    }

    /**
     * Every connection of the pool waits at most the configured lock, statement, socket and connect
     * timeouts. pgjdbc's data source takes them as bean properties (session options joined to any the
     * URL gives); Oracle's as connection properties.
     */
    private static void applyTimeouts(BeanWrapperImpl dataSource, DatabaseSettings settings) {
        Properties timeouts = settings.timeoutProperties(true);
        switch (settings.vendor()) {
            case POSTGRESQL -> timeouts.forEach((name, value) -> {
                Object fromUrl = "options".equals(name) ? dataSource.getPropertyValue("options") : null;
                dataSource.setPropertyValue((String) name, fromUrl == null || fromUrl.toString().isBlank()
                        ? value : fromUrl + " " + value);
            });
            case ORACLE -> dataSource.setPropertyValue("connectionProperties", timeouts);
        }
    }

    public AtomikosDataSourceBean pool(String uniqueResourceName, String prefix, DatabaseSettings settings) {
        AtomikosDataSourceBean pool = new AtomikosDataSourceBean();
        pool.setUniqueResourceName(uniqueResourceName);
        // timed branch calls (XaPhaseTimers); recovery asks the same wrapper, which delegates
        pool.setXaDataSource(new TimedXaDataSource(create(prefix, settings), uniqueResourceName));
        pool.setMinPoolSize(1);
        pool.setMaxPoolSize(settings.poolSize());
        pool.setBorrowConnectionTimeout(10);
        pool.setMaxIdleTime(60);
        // Validate each borrow with a query, not Connection.isValid: on a connection a socket timeout has closed,
        // pgjdbc's pooled handle throws from isValid instead of answering false, and Atomikos takes a throw for
        // "the driver cannot validate", switches validation off for that connection and lends it out dead
        // (chaos scenarios 51-53: the first request after a network blackhole failed with 500).
        pool.setTestQuery(settings.vendor().validationQuery());
        // Connections are only ever used inside JTA transactions; anything else is a bug to surface.
        pool.setLocalTransactionMode(false);
        return pool;
    }

    private static Object instantiate(String prefix, String className) {
        try {
            return Class.forName(className).getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | LinkageError e) {
            throw new StartupCheckFailure(prefix + ".xa-data-source-class", "cannot load " + className + " (" + e + ").",
                    "put the JDBC driver on the classpath or correct the class name.");
        }
    }
}
