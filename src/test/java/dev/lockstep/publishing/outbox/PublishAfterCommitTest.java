package dev.lockstep.publishing.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.support.ServiceJvm;
import dev.lockstep.support.ServiceProcess;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The embedded default as a user runs it, in a JVM of its own, with a poll interval of an hour: the
 * first tick is an hour away, so an approval that reaches the catalog within the test did so through
 * the early poll its own commit asked for (docs/publishing.md).
 */
class PublishAfterCommitTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path home;

    @Test
    void anApprovalIsPublishedRightAfterItsCommitNotAtTheNextPoll() throws Exception {
        int businessPort = ServiceJvm.freePort();
        try (ServiceProcess service = ServiceProcess.start(home, Map.of(
                "LOCKSTEP_PUBLISH_POLLINTERVAL", "1h",
                "LOCKSTEP_EMBEDDED_BUSINESSPORT", Integer.toString(businessPort),
                "LOCKSTEP_EMBEDDED_WORKFLOWPORT", Integer.toString(ServiceJvm.freePort()))).awaitUp()) {
            long id = json(service.post("/api/applications", user("alice"), """
                    {"title": "Published after commit", "assetId": 7, "amount": 10, "riskLevel": "LOW", "sensitive": false}"""),
                    201).get("id").asLong();
            json(service.post("/api/applications/" + id + "/submit", user("alice"), null), 200);
            for (String approver : new String[] {"bob", "frank"}) {
                String taskId = json(service.get("/api/applications/" + id, user(approver)), 200)
                        .get("openTasks").get(0).get("id").asString();
                json(service.post("/api/tasks/" + taskId + "/complete", user(approver),
                        "{\"decision\":\"APPROVE\",\"comment\":\"ok\"}"), 200);
            }

            JdbcTemplate business = database(businessPort, "lockstep_business");
            await("PUBLISHED long before the first tick").atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                    assertThat(business.queryForObject("select publish_status from application where id = ?", String.class, id))
                            .isEqualTo("PUBLISHED"));
            assertThat(database(businessPort, "lockstep_catalog").queryForObject(
                    "select count(*) from published_asset where application_id = ?", Long.class, id)).isOne();
        }
    }

    private static String user(String name) {
        return ServiceProcess.basic(name, "lockstep");
    }

    private static JsonNode json(HttpResponse<String> response, int expectedStatus) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(expectedStatus);
        return JSON.readTree(response.body());
    }

    private static JdbcTemplate database(int port, String name) {
        return new JdbcTemplate(new DriverManagerDataSource("jdbc:postgresql://localhost:" + port + "/" + name, "postgres", ""));
    }
}
