package dev.lockstep.platform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.support.HeldSubmits;
import dev.lockstep.support.SecondNode;
import dev.lockstep.support.ServiceProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Scenario: the embedded default, whose two PostgreSQL servers run inside the node's JVM, gets SIGTERM while two
 * submits are held inside their transactions. Expected: the servers stop only after everything built on them — the
 * submits answer 200 and are committed on both databases, the lease is released (not left to run out, as it was while
 * the servers stopped from a shutdown hook of their own), no transaction is left prepared in either database. Read
 * with plain SQL once the servers are started again on the node's data.
 */
class EmbeddedDrainTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String ALICE = ServiceProcess.basic("alice", "lockstep");

    @Test
    void aStopUnderInFlightSubmitsCommitsThemAndReleasesTheLeaseBeforeTheServersStop() throws Exception {
        Path home = Path.of("target", "embedded-drain", UUID.randomUUID().toString().substring(0, 8)).toAbsolutePath();
        Files.createDirectories(home);
        Path rules = HeldSubmits.rule(home, Duration.ofSeconds(4));
        List<Long> applications = new ArrayList<>();
        List<CompletableFuture<String>> answers = new ArrayList<>();
        int exit;
        // both submits held at once whatever the machine's cores (lockstep.actions.max-running)
        try (ServiceProcess service = ServiceProcess.start(home, Map.of("LOCKSTEP_EMBEDDED_BUSINESS_PORT", "0",
                "LOCKSTEP_EMBEDDED_WORKFLOW_PORT", "0", "LOCKSTEP_ACTIONS_MAX_RUNNING", "2"),
                List.of(SecondNode.bytemanAgent(rules))).awaitUp()) {
            for (int i = 0; i < 2; i++) {
                applications.add(json(service.post("/api/applications", ALICE, """
                        {"title":"Drained %d","assetId":42,"amount":1200.50,"riskLevel":"LOW","sensitive":false}
                        """.formatted(i)).body()).get("id").asLong());
            }
            for (long application : applications) {
                answers.add(CompletableFuture.supplyAsync(() -> {
                    var submitted = service.post("/api/applications/" + application + "/submit", ALICE, null);
                    return submitted.statusCode() + " " + submitted.body();
                }));
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> HeldSubmits.held(service) == applications.size());
            service.terminate();
            for (CompletableFuture<String> answer : answers) {
                assertThat(answer.get()).startsWith("200 ");
            }
            exit = service.exitCodeWithin(Duration.ofSeconds(90));
        }
        assertThat(exit).as("ended by its shutdown hooks on SIGTERM, not killed").isEqualTo(143);

        try (EmbeddedPostgresServers servers = new EmbeddedPostgresServers(TestProperties.embeddedAt(home, Map.of()))) {
            JdbcTemplate business = new JdbcTemplate(servers.endpoints().business().plainDataSource());
            JdbcTemplate workflow = new JdbcTemplate(servers.endpoints().workflow().plainDataSource());
            assertThat(business.queryForObject("""
                    select lease_expires_at < heartbeat_at + interval '1 minute' from recovery_node where tm_name = 'lockstep-1.tm'
                    """, Boolean.class)).as("released at the stop, while its database still ran").isTrue();
            assertThat(business.queryForObject("select count(*) from pg_prepared_xacts", Integer.class)).isZero();
            assertThat(workflow.queryForObject("select count(*) from pg_prepared_xacts", Integer.class)).isZero();
            for (long application : applications) {
                String processInstance = business.queryForObject(
                        "select process_instance_id from application where id = ? and approval_status <> 'DRAFT'",
                        String.class, application);
                assertThat(workflow.queryForObject("select count(*) from act_hi_procinst where id_ = ?", Integer.class,
                        processInstance)).isEqualTo(1);
            }
        }
    }

    private static JsonNode json(String body) {
        return JSON.readTree(body);
    }
}
