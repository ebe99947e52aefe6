package dev.lockstep.history.retention;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.TestDatabases;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The purge deletes exactly the old, finished rows and keeps everything that may still be needed,
 * read before and after with plain SQL. A batch size of 2 makes it loop over several batches.
 */
@LockstepIntegrationTest
class RetentionPurgeTest {

    static final Instant NOW = Instant.now();
    static final Timestamp OLD = Timestamp.from(NOW.minus(Duration.ofDays(100)));
    static final Timestamp RECENT = Timestamp.from(NOW.minus(Duration.ofDays(10)));
    static final Timestamp ANCIENT = Timestamp.from(NOW.minus(Duration.ofDays(400)));

    @Autowired TestDatabases databases;
    @Autowired MeterRegistry meters;

    final String run = "ret" + System.nanoTime() + "-";

    @Test
    void deletesOldFinishedRowsInBatchesAndKeepsWhatIsStillNeeded() {
        for (int i = 0; i < 5; i++) {
            command("old-done-" + i, "SUCCEEDED", OLD);
        }
        command("recent-done", "SUCCEEDED", RECENT);
        command("old-processing", "PROCESSING", OLD);
        command("old-heuristic", "SUCCEEDED", OLD);
        intent("g-heuristic", "old-heuristic", "HEURISTIC", RECENT);
        command("old-under-resolution", "SUCCEEDED", OLD);
        intent("g-resolving", "old-under-resolution", "COMMITTED", OLD);
        openResolution("g-resolving");

        intent("g-old-committed", null, "COMMITTED", OLD);
        intent("g-old-rolled-back", null, "ROLLED_BACK", OLD);
        intent("g-old-preparing", null, "PREPARING", OLD);
        intent("g-recent-committed", null, "COMMITTED", RECENT);

        heuristicEvent("g-ancient", ANCIENT);
        heuristicEvent("g-resolving", ANCIENT);
        heuristicEvent("g-recent", RECENT);
        long auditBefore = databases.business().queryForObject("select count(*) from recovery_audit", Long.class);

        new RetentionPurge(databases.business(), new RetentionProperties(true, Duration.ofHours(1), 2, Duration.ofDays(90),
                Duration.ofDays(90), Duration.ofDays(365)), Clock.systemUTC(), meters).purge();

        assertThat(databases.business().queryForList("select request_id from workflow_command where request_id like ?",
                String.class, run + "%")).containsExactlyInAnyOrder(run + "recent-done", run + "old-processing",
                run + "old-heuristic", run + "old-under-resolution");
        assertThat(databases.business().queryForList("select gtrid from recovery_intent where gtrid like ?", String.class,
                run + "%")).containsExactlyInAnyOrder(run + "g-heuristic", run + "g-resolving", run + "g-old-preparing",
                run + "g-recent-committed");
        assertThat(databases.business().queryForList("select gtrid from recovery_heuristic_event where gtrid like ?",
                String.class, run + "%")).containsExactlyInAnyOrder(run + "g-resolving", run + "g-recent");
        assertThat(databases.business().queryForObject("select count(*) from recovery_audit", Long.class)).isEqualTo(auditBefore);
    }

    @Test
    void theJobIsRegisteredWithTheClusterScheduler() {
        List<String> jobs = databases.business().queryForList("select task_name from scheduled_tasks", String.class);
        assertThat(jobs).contains(RetentionConfiguration.JOB);
    }

    private void command(String key, String status, Timestamp at) {
        databases.business().update("""
                insert into workflow_command (request_id, command_type, business_type, business_id, requested_by,
                    request_fingerprint, command_status, response_status, created_at, updated_at)
                values (?, 'SUBMIT', 'APPLICATION', '1', 'alice', 'f', ?, 200, ?, ?)
                """, run + key, status, at, at);
    }

    private void intent(String gtrid, String requestKey, String status, Timestamp at) {
        databases.business().update("""
                insert into recovery_intent (gtrid, tm_name, use_case, business_key, request_id, user_id, status, recorded_at,
                    completed_at) values (?, 'lockstep-it.tm', 'submit', '1', ?, 'alice', ?, ?, ?)
                """, run + gtrid, requestKey == null ? null : run + requestKey, status, at,
                "PREPARING".equals(status) ? null : at);
    }

    private void openResolution(String gtrid) {
        databases.business().update("""
                insert into recovery_resolution (gtrid, action, reason, status, proposed_by, proposed_at)
                values (?, 'COMMIT', 'retention test', 'PROPOSED', 'dba1', ?)
                """, run + gtrid, OLD);
    }

    private void heuristicEvent(String gtrid, Timestamp at) {
        databases.business().update("""
                insert into recovery_heuristic_event (gtrid, participant, state, tm_name, reported_at)
                values (?, 'probe', 'HEUR_MIXED', 'lockstep-it.tm', ?)
                """, run + gtrid, at);
    }
}
