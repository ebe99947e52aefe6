package dev.lockstep.transactions.xa;

import dev.lockstep.platform.AreaApi;
import dev.lockstep.platform.DatabaseSettings;
import dev.lockstep.platform.StartupCheckFailure;
import dev.lockstep.platform.TransactionMode;
import io.agroal.api.AgroalDataSource;
import io.agroal.api.configuration.supplier.AgroalConnectionFactoryConfigurationSupplier;
import io.agroal.api.configuration.supplier.AgroalDataSourceConfigurationSupplier;
import io.agroal.api.exceptionsorter.OracleExceptionSorter;
import io.agroal.api.exceptionsorter.PostgreSQLExceptionSorter;
import io.agroal.api.security.NamePrincipal;
import io.agroal.api.security.SimplePassword;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;
import java.util.stream.Collectors;
import javax.sql.XADataSource;
import org.springframework.beans.BeanWrapperImpl;

/** Builds vendor XA DataSources from settings, and the XA pools over them. */
@AreaApi
public class XaDataSourceFactory {

    private final TransactionMode mode;

    /** Pools whose branches commit by two-phase commit. */
    public XaDataSourceFactory() {
        this(TransactionMode.XA);
    }

    /** Pools whose branches commit in {@code mode}: LOCAL only for the chaos suite's negative control. */
    public XaDataSourceFactory(TransactionMode mode) {
        this.mode = mode;
    }

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

    /**
     * The database's XA pool (Agroal), its connections enlisted in the current JTA transaction by Atomikos, and
     * Atomikos's recovery of the database. Atomikos's own pool wrapped every connection handle and statement in a
     * reflective proxy that looked up and checked its session state on every JDBC call (docs/performance.md); Agroal's
     * wrappers are plain classes. As before: the connection a transaction first borrows is validated, a borrow waits
     * at most 10 s, idle connections beyond the first go after 60 s.
     */
    public XaPool pool(String uniqueResourceName, String prefix, DatabaseSettings settings) {
        XADataSource driver = create(prefix, settings);
        AgroalDataSourceConfigurationSupplier configuration = new AgroalDataSourceConfigurationSupplier()
                .metricsEnabled(true)
                .connectionPoolConfiguration(pool -> pool
                        .initialSize(1)
                        .minSize(1)
                        .maxSize(settings.poolSize())
                        .acquisitionTimeout(XaPool.BORROW_TIMEOUT)
                        .reapTimeout(Duration.ofSeconds(60))
                        // A connection that a socket timeout or a network outage left dead is replaced at the borrow,
                        // not lent out (chaos scenarios 51-53); pgjdbc's handle throws from isValid there, which
                        // counts as invalid.
                        .validateOnBorrow(true)
                        .connectionValidator(connection -> {
                            try {
                                return connection.isValid((int) XaPool.BORROW_TIMEOUT.toSeconds());
                            } catch (SQLException | RuntimeException e) {
                                return false;
                            }
                        })
                        // a connection that failed with a connection-class error is thrown away, not pooled again
                        .exceptionSorter(switch (settings.vendor()) {
                            case POSTGRESQL -> new PostgreSQLExceptionSorter();
                            case ORACLE -> new OracleExceptionSorter();
                        })
                        .transactionIntegration(new AtomikosTransactionIntegration(uniqueResourceName, mode))
                        .connectionFactoryConfiguration(factory -> likeTheDriver(factory, driver, settings)));
        try {
            return new XaPool(AgroalDataSource.from(configuration),
                    new RecoverableDatabase(uniqueResourceName, new TimedXaDataSource(driver, uniqueResourceName)));
        } catch (SQLException e) {
            throw new IllegalStateException("cannot open the XA pool of " + uniqueResourceName, e);
        }
    }

    /**
     * Agroal makes its own instances of the driver's XA DataSource class: the same URL, user and timeouts as
     * {@code driver}, which {@link #create} configured (pgjdbc's session options joined to any the URL gives).
     */
    private static AgroalConnectionFactoryConfigurationSupplier likeTheDriver(AgroalConnectionFactoryConfigurationSupplier factory,
            XADataSource driver, DatabaseSettings settings) {
        factory.connectionProviderClass(driver.getClass())
                .jdbcUrl(settings.url())
                .principal(new NamePrincipal(settings.username()))
                .credential(new SimplePassword(settings.password() == null ? "" : settings.password()));
        Properties timeouts = settings.timeoutProperties(true);
        switch (settings.vendor()) {
            case POSTGRESQL -> {
                BeanWrapperImpl configured = new BeanWrapperImpl(driver);
                timeouts.stringPropertyNames().forEach(name -> factory.jdbcProperty(name, String.valueOf(configured.getPropertyValue(name))));
            }
            // Agroal reads a Properties-typed bean property as "name=value;name=value"
            case ORACLE -> factory.jdbcProperty("connectionProperties", timeouts.stringPropertyNames().stream()
                    .map(name -> name + "=" + timeouts.getProperty(name)).collect(Collectors.joining(";")));
        }
        return factory;
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
