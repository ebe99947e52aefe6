package dev.lockstep.platform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.support.ServiceProcess;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * What an operator reads after the README walk-through, a few refused commands and an orderly stop (SIGTERM): no
 * WARN or ERROR line that is not about a real fault (docs/operations.md, "A clean log"). The embedded default runs
 * in a JVM of its own, as README starts it. A refused command rolls back a use-case transaction that the engine
 * had marked rollback-only; Hibernate 7.2 warned HHH90010101 for it although its JTA synchronization still ran the
 * completion callbacks. At the stop the name lease must be released while its database still runs.
 */
class OrderlyRunLogTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String ALICE = ServiceProcess.basic("alice", "lockstep");
    private static final String BOB = ServiceProcess.basic("bob", "lockstep");
    private static final String FRANK = ServiceProcess.basic("frank", "lockstep");

    /** Library notices, not faults: Atomikos asks every unregistered installation to register. */
    private static final List<String> NOT_FAULTS = List.of("Thanks for using Atomikos! This installation is not registered yet.");

    @Test
    void theWalkThroughRefusedCommandsAndAnOrderlyStopLogNoWarningAndReleaseTheLease() throws IOException {
        Path home = Path.of("target", "orderly-run", UUID.randomUUID().toString().substring(0, 8)).toAbsolutePath();
        ServiceProcess service = ServiceProcess.start(home, Map.of("LOCKSTEP_EMBEDDED_BUSINESS_PORT", "0",
                "LOCKSTEP_EMBEDDED_WORKFLOW_PORT", "0", "LOCKSTEP_RECONCILIATION_ENABLED", "true"));
        int exit;
        long application;
        try {
            service.awaitUp();
            application = walkThrough(service);
            String decided = json(service.get("/api/tasks/done", FRANK)).get("items").get(0).get("id").asString();
            assertThat(service.post("/api/tasks/" + decided + "/complete", FRANK, "{\"decision\":\"APPROVE\"}", "refused-1")
                    .statusCode()).isEqualTo(409);
            assertThat(service.post("/api/applications/" + application + "/submit", ALICE, null, "refused-2").statusCode())
                    .isEqualTo(409);
            assertThat(service.post("/api/applications/" + application + "/withdraw", ALICE, "{\"reason\":\"late\"}",
                    "refused-3").statusCode()).isEqualTo(409);
        } finally {
            exit = service.stop();
        }

        String log = service.output();
        assertThat(exit).as("ended by its shutdown hooks on SIGTERM, not killed").isEqualTo(143);
        assertThat(log).doesNotContain("HHH90010101").doesNotContain("propagated an exception");
        assertThat(log.lines().filter(line -> line.contains(" WARN ") || line.contains(" ERROR "))
                .filter(line -> NOT_FAULTS.stream().noneMatch(line::contains)))
                .as("WARN and ERROR lines of %s", service.baseUrl()).isEmpty();

        try (EmbeddedPostgresServers servers = new EmbeddedPostgresServers(TestProperties.embeddedAt(home, Map.of()))) {
            JdbcTemplate business = new JdbcTemplate(servers.endpoints().business().plainDataSource());
            assertThat(business.queryForObject("""
                    select lease_expires_at < heartbeat_at + interval '1 minute' from recovery_node where tm_name = 'lockstep-1.tm'
                    """, Boolean.class)).as("released at the stop, not left to run out").isTrue();
            assertThat(business.queryForMap("select approval_status, publish_status from application where id = ?", application))
                    .containsEntry("approval_status", "APPROVED").containsEntry("publish_status", "PUBLISHED");
            assertThat(business.queryForObject("select count(*) from approval_record where application_id = ?", Integer.class,
                    application)).isEqualTo(2);
            assertThat(business.queryForList("select request_id from workflow_command where request_id like 'refused-%'"))
                    .as("a refused command's claim rolled back with it").isEmpty();
            assertThat(business.queryForList("select command_status from workflow_command", String.class))
                    .as("every accepted command recorded its answer").containsOnly("SUCCEEDED");
        }
    }

    /** README's walk-through: alice applies, bob and frank approve, the publisher delivers it to the catalog. */
    private static long walkThrough(ServiceProcess service) {
        long application = json(service.post("/api/applications", ALICE, """
                {"title":"Publish asset 42","assetId":42,"amount":1200.50,"riskLevel":"LOW","sensitive":false}
                """)).get("id").asLong();
        assertThat(service.post("/api/applications/" + application + "/submit", ALICE, null).statusCode()).isEqualTo(200);
        for (String approver : List.of(BOB, FRANK)) {
            String task = json(service.get("/api/tasks", approver)).get("items").get(0).get("id").asString();
            assertThat(service.post("/api/tasks/" + task + "/complete", approver, "{\"decision\":\"APPROVE\"}").statusCode())
                    .isEqualTo(200);
        }
        await().atMost(Duration.ofMinutes(1)).until(() -> "PUBLISHED".equals(
                json(service.get("/api/applications/" + application, ALICE)).get("publishStatus").asString()));
        return application;
    }

    private static JsonNode json(HttpResponse<String> response) {
        return JSON.readTree(response.body());
    }
}
