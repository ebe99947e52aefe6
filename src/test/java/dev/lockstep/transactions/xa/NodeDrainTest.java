package dev.lockstep.transactions.xa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.HeldSubmits;
import dev.lockstep.support.SecondNode;
import dev.lockstep.support.ServiceProcess;
import dev.lockstep.support.TestDatabases;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Scenario: SIGTERM reaches a node while three submits are inside their two-phase transactions (a Byteman rule holds
 * each at the end of {@code ApplicationLifecycle.submit}). Expected: the node refuses new connections at once, every
 * accepted submit answers 200 as it would have without the stop, the JVM ends by its shutdown hooks (143) well within
 * drain time + transaction timeout, its name's lease is released, and none of its transactions is left prepared in
 * either database — the submits are committed on both (plain SQL). Twice: submits that end within the web server's
 * drain, and one that outlasts it (drain 1 s) and is still waited for, up to the transaction timeout, before Atomikos
 * and the pools stop.
 */
@LockstepIntegrationTest
class NodeDrainTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String PASSWORD = UUID.randomUUID().toString();
    private static final String ANN = ServiceProcess.basic("ann", PASSWORD);

    @Autowired TestDatabases db;
    @Autowired DatabaseEndpoints endpoints;

    @Test
    void requestsInFlightAtSigtermFinishWithTheirAnswerAndTheNodeLeavesNothingBehind() throws Exception {
        drain("drain-n5.tm", 3, Duration.ofSeconds(6), Map.of());
    }

    @Test
    void aTransactionThatOutlastsTheWebDrainIsStillWaitedForUpToTheTransactionTimeout() throws Exception {
        drain("drain-n6.tm", 1, Duration.ofSeconds(10), Map.of("SPRING_LIFECYCLE_TIMEOUT_PER_SHUTDOWN_PHASE", "1s"));
    }

    private void drain(String node, int submits, Duration hold, Map<String, String> settings) throws Exception {
        Path home = Path.of("target", "drain-test", node + "-" + UUID.randomUUID().toString().substring(0, 8))
                .toAbsolutePath();
        Files.createDirectories(home);
        Path rules = HeldSubmits.rule(home, hold);
        Map<String, String> environment = ServiceProcess.externalModeOn(endpoints, node);
        environment.put("LOCKSTEP_SECURITY_USERS_0_NAME", "ann");
        environment.put("LOCKSTEP_SECURITY_USERS_0_PASSWORD", "{noop}" + PASSWORD);
        environment.put("LOCKSTEP_SECURITY_USERS_0_ROLES", "APPLICANT");
        environment.putAll(settings);

        List<Long> applications = new ArrayList<>();
        List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
        int exit;
        try (ServiceProcess service = ServiceProcess.start(home, environment, List.of(SecondNode.bytemanAgent(rules)))
                .awaitUp()) {
            for (int i = 0; i < submits; i++) {
                HttpResponse<String> draft = service.post("/api/applications", ANN, """
                        {"title": "Drained %d", "assetId": 7, "amount": 10.00, "riskLevel": "LOW", "sensitive": false}
                        """.formatted(i));
                assertThat(draft.statusCode()).as(draft.body()).isEqualTo(201);
                applications.add(JSON.readTree(draft.body()).get("id").asLong());
            }
            for (long application : applications) {
                answers.add(CompletableFuture.supplyAsync(() -> service.post("/api/applications/" + application + "/submit",
                        ANN, null)));
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> HeldSubmits.held(service) == submits);

            service.terminate();

            await().atMost(Duration.ofSeconds(10)).until(() -> refusesNewConnections(service));
            assertThat(answers).as("the refusal came while the accepted submits were still held").noneMatch(
                    CompletableFuture::isDone);
            for (CompletableFuture<HttpResponse<String>> answer : answers) {
                HttpResponse<String> submitted = answer.get();
                assertThat(submitted.statusCode()).as(submitted.body()).isEqualTo(200);
                assertThat(JSON.readTree(submitted.body()).get("processInstanceId").asString()).isNotBlank();
            }
            // generous: the web drain, the transaction timeout (30 s) and the stop of everything else
            exit = service.exitCodeWithin(Duration.ofSeconds(90));
        }

        assertThat(exit).as("ended by its shutdown hooks on SIGTERM, not killed").isEqualTo(143);
        assertThat(db.business().queryForObject("""
                select lease_expires_at <= now() and lease_expires_at < heartbeat_at + interval '1 minute'
                  from recovery_node where tm_name = ?""", Boolean.class, node))
                .as("the lease is released at the stop, not left to run out").isTrue();
        assertThat(db.preparedTransactions()).as("no prepared transaction of the stopped node in either database")
                .noneMatch(row -> PgGidCodec.decode((String) row.get("gid")).flatMap(DecodedXid::ownerTm)
                        .filter(node::equals).isPresent());
        for (long application : applications) {
            String processInstance = db.business().queryForObject(
                    "select process_instance_id from application where id = ? and approval_status <> 'DRAFT'", String.class,
                    application);
            assertThat(db.workflow().queryForObject("select count(*) from act_hi_procinst where id_ = ?", Integer.class,
                    processInstance)).as("the submit of %d committed on the workflow database too", application).isEqualTo(1);
        }
    }

    /** A new client's connection is refused (or answered 503) once the node drains. */
    private static boolean refusesNewConnections(ServiceProcess service) throws InterruptedException {
        HttpClient fresh = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        try {
            HttpResponse<Void> answer = fresh.send(HttpRequest.newBuilder(URI.create(service.baseUrl()
                    + "/actuator/health/readiness")).timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding());
            return answer.statusCode() == 503;
        } catch (IOException refused) {
            return true;
        }
    }
}
