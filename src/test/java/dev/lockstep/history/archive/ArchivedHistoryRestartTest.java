package dev.lockstep.history.archive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.approval.ApiFlows;
import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.support.Api;
import dev.lockstep.support.SecondNode;
import dev.lockstep.support.UseCaseIntegrationTest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.activiti.spring.SpringProcessEngineConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.mock.env.MockEnvironment;

/**
 * A node started on a workflow database whose history is partly archived: its engine boots, it reads an
 * archived application as the first node does, and it runs a new approval from submit to the end.
 */
class ArchivedHistoryRestartTest extends UseCaseIntegrationTest {

    @Autowired
    SpringProcessEngineConfiguration engine;
    @Autowired
    DatabaseEndpoints endpoints;

    @Test
    void aNodeStartedOnPartlyArchivedHistoryReadsArchivedApplicationsAndRunsNewOnes() {
        long old;
        String oldRun;
        engine.getClock().setCurrentTime(Date.from(Instant.now().minus(Duration.ofDays(300))));
        try {
            old = ApiFlows.createDraft(api, "LOW", false);
            oldRun = ApiFlows.submit(api, old);
            approve(api, "bob", oldRun, "managerApproval");
            approve(api, "frank", oldRun, "finalApproval");
        } finally {
            engine.getClock().reset();
        }
        long running = ApiFlows.createDraft(api, "LOW", false);
        String runningRun = ApiFlows.submit(api, running);
        Api.Response moved = api.post("erin", "/api/admin/history-archival/runs", "{\"batches\": 100}");
        assertThat(moved.status()).as(moved.toString()).isEqualTo(200);
        assertThat(db.workflow().queryForObject("select count(*) from act_hi_procinst where id_ = ?", Integer.class, oldRun)).isZero();
        assertThat(db.workflow().queryForObject("select count(*) from act_hi_procinst where id_ = ?", Integer.class, runningRun))
                .as("history partly moved: the running run's is still there").isEqualTo(1);
        String details = api.get("alice", "/api/applications/" + old).body();

        SecondNode node = SecondNode.start(endpoints, "lockstep-arch2.tm", List.of(), users());
        try {
            node.jvm().awaitHealth(Duration.ofMinutes(5), status -> status == 200);
            MockEnvironment port = new MockEnvironment().withProperty("local.server.port", node.baseUrl().replaceAll(".*:", ""));
            Api second = new Api(port);

            assertThat(second.get("alice", "/api/applications/" + old).body()).isEqualTo(details);
            approve(second, "bob", runningRun, "managerApproval");
            approve(second, "frank", runningRun, "finalApproval");
            assertThat(db.business().queryForObject("select approval_status from application where id = ?", String.class, running))
                    .isEqualTo("APPROVED");
            long fresh = ApiFlows.createDraft(second, "LOW", false);
            String freshRun = ApiFlows.submit(second, fresh);
            approve(second, "bob", freshRun, "managerApproval");
            approve(second, "frank", freshRun, "finalApproval");
            assertThat(db.business().queryForObject("select approval_status from application where id = ?", String.class, fresh))
                    .isEqualTo("APPROVED");
            assertThat(db.workflow().queryForObject("select end_time_ is not null from act_hi_procinst where id_ = ?",
                    Boolean.class, freshRun)).isTrue();
        } finally {
            node.kill();
        }
    }

    private void approve(Api on, String user, String run, String taskKey) {
        Api.Response response = ApiFlows.complete(on, user, ApiFlows.openTaskId(db, run, taskKey), "APPROVE");
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
    }

    /** External mode has no demo users: the applicant and the two approvers, with the demo password. */
    private static List<String> users() {
        List<String> settings = new ArrayList<>(List.of("--lockstep.archival.enabled=false"));
        settings.addAll(SecondNode.users(new String[] {"alice", "APPLICANT", null}, new String[] {"bob", "APPROVER", "managers"},
                new String[] {"frank", "APPROVER", "directors"}));
        return settings;
    }
}
