package dev.lockstep.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.delivery.RemoteCallOutsideTransaction.RemoteCallInTransactionException;
import dev.lockstep.support.LockstepIntegrationTest;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.web.client.RestClient;

/** The runtime half of "no remote call inside an XA transaction"; ArchitectureTest is the static half. */
@LockstepIntegrationTest
class RemoteCallOutsideTransactionTest {

    @Autowired
    RemoteCalls remoteCalls;
    @Autowired
    PlatformTransactionManager transactionManager;
    @LocalServerPort
    int port;

    @Test
    void aCallInsideTheJtaTransactionIsRefusedBeforeAnythingIsSent() {
        RestClient client = remoteCalls.client("http://localhost:" + port, Duration.ofSeconds(2), Duration.ofSeconds(5));
        TransactionTemplate transaction = new TransactionTemplate(transactionManager);

        assertThatThrownBy(() -> transaction.executeWithoutResult(status ->
                client.get().uri("/actuator/health").retrieve().toBodilessEntity()))
                .isInstanceOf(RemoteCallInTransactionException.class)
                .hasMessageContaining("/actuator/health");
    }

    @Test
    void theSameCallAfterTheCommitGoesThrough() {
        RestClient client = remoteCalls.client("http://localhost:" + port, Duration.ofSeconds(2), Duration.ofSeconds(5));

        assertThat(client.get().uri("/actuator/health").retrieve().toBodilessEntity().getStatusCode().value()).isEqualTo(200);
    }
}
