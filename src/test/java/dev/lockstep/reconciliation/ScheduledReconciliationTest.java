package dev.lockstep.reconciliation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.approval.ApiFlows;
import dev.lockstep.platform.ClusterScheduler;
import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.support.Api;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.SecondNode;
import dev.lockstep.support.TestDatabases;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The scheduled reconciliation as production runs it (the test contexts otherwise turn it off): the incremental job of
 * the cluster scheduler runs by itself, each run resumes at the stored watermark and moves it on; with a second node
 * on the same databases (its own JVM) each takes the job and the two never run it at the same time. Read with plain SQL from
 * reconciliation_run and reconciliation_watermark.
 */
@LockstepIntegrationTest
class ScheduledReconciliationTest {

    static final String SELF = "lockstep-it.tm";
    static final String NODE2 = "lockstep-recon-n2.tm";
    /** Applications per run: fewer than exist, so the watermark must move for successive runs to cover them. */
    static final int PER_RUN = 60;
    /**
     * Not a multiple of the scheduler's 1 s polling: a node checks for due work right after finishing a run, so with
     * a 1 s pause its next poll falls just after the run is due again and it nearly always beats the other node.
     */
    static final String PAUSE = "1500ms";

    @DynamicPropertySource
    static void scheduleOn(DynamicPropertyRegistry properties) {
        properties.add("lockstep.reconciliation.enabled", () -> "true");
        properties.add("lockstep.reconciliation.incremental-interval", () -> PAUSE);
        properties.add("lockstep.reconciliation.max-applications", () -> Integer.toString(PER_RUN));
        properties.add("lockstep.scheduler.polling-interval", () -> "1s");
    }

    @Autowired
    Api api;
    @Autowired
    TestDatabases db;
    @Autowired
    DatabaseEndpoints endpoints;
    @Autowired
    ClusterScheduler clusterScheduler;

    SecondNode node2;

    @AfterEach
    void stopNode2() {
        if (node2 != null) {
            node2.kill();
        }
    }

    @Test
    void theIncrementalJobRunsOnScheduleResumesAtTheWatermarkAndOnlyOneNodeRunsItAtATime() {
        for (int i = 0; i < PER_RUN * 2 + 30; i++) {
            ApiFlows.createDraft(api, "LOW", false);
        }
        Timestamp seeded = now();

        await("three scheduled runs over the seeded applications").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofSeconds(1))
                .until(() -> scheduledRunsSince(seeded).size() >= 3);

        List<Map<String, Object>> runs = scheduledRunsSince(seeded);
        for (int i = 1; i < runs.size(); i++) {
            assertThat(runs.get(i).get("from_application_id")).as("run %s resumes where run %s stopped", runs.get(i).get("id"),
                    runs.get(i - 1).get("id")).isEqualTo(runs.get(i - 1).get("to_application_id"));
            assertThat(runs.get(i).get("to_application_id")).as("and moves on").isNotEqualTo(runs.get(i - 1).get("to_application_id"));
        }
        assertThat(runs).allSatisfy(run -> assertThat(run).containsEntry("requested_by", "scheduler@" + SELF)
                .containsEntry("applications_scanned", PER_RUN));
        // between two runs (the job pauses 1.5 s) the stored watermark is where the newest run stopped
        await("the watermark is the newest run's end").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    List<Map<String, Object>> finished = scheduledRunsSince(seeded);
                    Object newest = finished.get(finished.size() - 1).get("to_application_id");
                    return newest.equals(db.business().queryForObject(
                            "select last_application_id from reconciliation_watermark where scan = 'INCREMENTAL'", Long.class));
                });

        // this node keeps running the job while the second one starts, so it has turns after "joined"
        Timestamp joined = now();
        node2 = SecondNode.start(endpoints, NODE2, List.of(), List.of(
                "--lockstep.reconciliation.enabled=true",
                "--lockstep.reconciliation.incremental-interval=" + PAUSE,
                "--lockstep.reconciliation.max-applications=" + PER_RUN,
                "--lockstep.scheduler.polling-interval=1s"));
        node2.jvm().awaitHealth(Duration.ofMinutes(5), status -> status == 200 || status == 503);

        // Which of two polling nodes wins a due run is a race that one node can keep winning on a given machine, so
        // this node steps aside until the second has taken the job once; then both poll and the runs must not overlap.
        clusterScheduler.stop();
        try {
            await("the second node takes the job").atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofSeconds(1))
                    .until(() -> scheduledRunsSince(joined).stream().anyMatch(run -> run.get("requested_by").equals("scheduler@" + NODE2)));
        } finally {
            clusterScheduler.start();
        }
        Timestamp bothPolling = now();
        await("runs while both nodes poll").atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofSeconds(1))
                .until(() -> scheduledRunsSince(bothPolling).size() >= 4);

        List<Map<String, Object>> turns = scheduledRunsSince(joined);
        assertThat(turns).extracting(run -> run.get("requested_by")).contains("scheduler@" + SELF, "scheduler@" + NODE2);
        for (int i = 1; i < turns.size(); i++) {
            Instant previousEnd = ((Timestamp) turns.get(i - 1).get("finished_at")).toInstant();
            Instant start = ((Timestamp) turns.get(i).get("started_at")).toInstant();
            assertThat(start).as("run %s (%s) starts after run %s (%s) finished", turns.get(i).get("id"),
                    turns.get(i).get("requested_by"), turns.get(i - 1).get("id"), turns.get(i - 1).get("requested_by"))
                    .isAfterOrEqualTo(previousEnd);
            assertThat(turns.get(i).get("from_application_id")).isEqualTo(turns.get(i - 1).get("to_application_id"));
        }
    }

    /** Finished scheduled incremental runs started after {@code since}, in start order. */
    private List<Map<String, Object>> scheduledRunsSince(Timestamp since) {
        return db.business().queryForList("""
                select id, requested_by, state, started_at, finished_at, from_application_id, to_application_id, applications_scanned
                  from reconciliation_run
                 where kind = 'INCREMENTAL' and requested_by like 'scheduler@%' and started_at > ? and state = 'SUCCEEDED'
                 order by started_at
                """, since);
    }

    private Timestamp now() {
        return db.business().queryForObject("select now()", Timestamp.class);
    }
}
