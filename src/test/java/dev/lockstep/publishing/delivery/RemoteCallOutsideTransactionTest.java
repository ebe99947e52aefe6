package dev.lockstep.publishing.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.publishing.catalog.CatalogCredential;
import dev.lockstep.publishing.delivery.RemoteCallOutsideTransaction.RemoteCallInTransactionException;
import dev.lockstep.support.LockstepIntegrationTest;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/** The runtime half of "no remote call inside an XA transaction"; ArchitectureTest is the static half. */
@LockstepIntegrationTest
class RemoteCallOutsideTransactionTest {

    @Autowired
    RemoteCallOutsideTransaction outsideTransaction;
    @Autowired
    CatalogCredential catalogCredential;
    @Autowired
    PlatformTransactionManager transactionManager;
    @LocalServerPort
    int port;

    @Test
    void aCallInsideTheJtaTransactionIsRefusedBeforeAnythingIsSent() {
        CatalogClient catalog = catalog();
        TransactionTemplate transaction = new TransactionTemplate(transactionManager);

        assertThatThrownBy(() -> transaction.executeWithoutResult(status -> {
            try {
                catalog.lookup("no-such-event", null);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        })).isInstanceOf(RemoteCallInTransactionException.class).hasMessageContaining("/publications/no-such-event");
    }

    @Test
    void theSameCallOutsideAnyTransactionGoesThrough() throws InterruptedException {
        assertThat(catalog().lookup("no-such-event", null)).isEqualTo(CatalogClient.Lookup.NOT_APPLIED);
    }

    private CatalogClient catalog() {
        return new CatalogClient(() -> URI.create("http://localhost:" + port + "/catalog"), catalogCredential.token(), Duration.ofSeconds(2),
                Duration.ofSeconds(5), outsideTransaction);
    }
}
