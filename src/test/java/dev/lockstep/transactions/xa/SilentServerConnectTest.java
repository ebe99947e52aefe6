package dev.lockstep.transactions.xa;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.platform.DatabaseSettings;
import io.agroal.api.AgroalDataSource;
import io.agroal.api.configuration.supplier.AgroalDataSourceConfigurationSupplier;
import io.agroal.api.security.NamePrincipal;
import io.agroal.api.security.SimplePassword;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A server that accepts the TCP connection and then answers nothing (a dead route behind a load balancer or
 * proxy, a frozen host) must not hold a connection attempt forever: {@code lockstep.db.<db>.connect-timeout}
 * bounds the login too. Without it Atomikos's recovery thread waited in pgjdbc's authentication for as long as
 * the outage lasted, holding the resource lock a request's rollback needed (chaos scenarios 51-54). The 60 s
 * below only tells a hang from a failure; it measures nothing.
 */
class SilentServerConnectTest {

    private ServerSocket silent;
    private final List<Socket> accepted = new CopyOnWriteArrayList<>();
    private final ExecutorService connecting = Executors.newCachedThreadPool();

    @BeforeEach
    void acceptAndSayNothing() throws IOException {
        silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(() -> {
            while (!silent.isClosed()) {
                try {
                    accepted.add(silent.accept());
                } catch (IOException closed) {
                    return;
                }
            }
        }, "silent-server");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    @AfterEach
    void close() throws IOException {
        connecting.shutdownNow();
        silent.close();
        for (Socket socket : accepted) {
            socket.close();
        }
    }

    @Test
    void anXaConnectionToASilentServerFailsInsteadOfWaitingForever() throws Exception {
        XaDataSourceFactory factory = new XaDataSourceFactory();
        var xa = factory.create("lockstep.db.business", settings());

        Throwable failure = failureOf(() -> xa.getXAConnection().close());

        assertThat(failure).isInstanceOf(SQLException.class);
        assertThat(accepted).as("the TCP connect itself succeeded: only the login could hang").isNotEmpty();
    }

    @Test
    void aPlainConnectionWithoutSocketTimeoutFailsToo() throws Exception {
        // the schema data source has no socket timeout (long migrations): the login timeout is all that bounds it
        Throwable failure = failureOf(() -> settings().schemaDataSource().getConnection().close());

        assertThat(failure).isInstanceOf(SQLException.class);
    }

    /**
     * A borrow that waits for the pool to open a new connection, and the server does not answer in time, is the same
     * transient refusal as a full pool (503 DATABASE_BUSY), not an unexpected error: Agroal has a second message for
     * it. (Seen in the recovery benchmark under 100 held transactions: a submit got a 500.) A plain Agroal pool here, as
     * the XA pools' recovery registration would point Atomikos at the silent server too.
     */
    @Test
    void aBorrowWaitingForANewConnectionThatDoesNotOpenInTimeIsTransient() throws Exception {
        AgroalDataSourceConfigurationSupplier configuration = new AgroalDataSourceConfigurationSupplier()
                .connectionPoolConfiguration(pool -> pool.maxSize(1).acquisitionTimeout(Duration.ofSeconds(1))
                        .connectionFactoryConfiguration(factory -> factory.jdbcUrl(settings().url())
                                .principal(new NamePrincipal("lockstep")).credential(new SimplePassword("lockstep"))
                                .jdbcProperty("loginTimeout", "5")));
        try (AgroalDataSource pool = AgroalDataSource.from(configuration)) {
            Throwable failure = failureOf(() -> pool.getConnection().close());
            Throwable reported = XaPool.transientWhenTimedOut((SQLException) failure, "silent", 1);

            assertThat(reported).isInstanceOf(SQLTransientConnectionException.class).hasMessageContaining("came free or was opened within")
                    .cause().isSameAs(failure);
        }
    }

    /** Every default except a connect timeout of 1 s, pointed at the silent server. */
    private DatabaseSettings settings() {
        return new DatabaseSettings("jdbc:postgresql://127.0.0.1:" + silent.getLocalPort() + "/lockstep", "lockstep", "lockstep",
                null, null, null, null, null, null, Duration.ofSeconds(1));
    }

    private Throwable failureOf(Attempt attempt) throws InterruptedException {
        var outcome = connecting.submit(() -> {
            attempt.run();
            return null;
        });
        try {
            outcome.get(60, TimeUnit.SECONDS);
            throw new AssertionError("a silent server let the connection through");
        } catch (TimeoutException e) {
            throw new AssertionError("the connection attempt still waits after 60 s: the login has no timeout", e);
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }

    @FunctionalInterface
    private interface Attempt {
        void run() throws SQLException;
    }
}
