package dev.lockstep.platform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.github.kagkarlsson.scheduler.task.helper.RecurringTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.github.kagkarlsson.scheduler.task.schedule.FixedDelay;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.TestDatabases;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** Two nodes' schedulers on one database: a due execution of a job runs on exactly one of them. */
@LockstepIntegrationTest
class ClusterSchedulerTest {

    @Autowired DatabaseEndpoints endpoints;
    @Autowired TestDatabases databases;

    @Test
    void twoSchedulersOnOneDatabaseRunADueJobOnce() {
        String job = "probe-" + System.nanoTime();
        AtomicInteger runs = new AtomicInteger();
        RecurringTask<Void> task = Tasks.recurring(job, FixedDelay.of(Duration.ofHours(1)))
                .execute((instance, context) -> runs.incrementAndGet());
        ClusterScheduler first = new ClusterScheduler(endpoints.business().plainDataSource(), "node-a.tm", List.of(task),
                Duration.ofMillis(200), Duration.ofSeconds(10));
        ClusterScheduler second = new ClusterScheduler(endpoints.business().plainDataSource(), "node-b.tm", List.of(task),
                Duration.ofMillis(200), Duration.ofSeconds(10));
        first.start();
        second.start();
        try {
            await().atMost(Duration.ofSeconds(60)).until(() -> databases.business().queryForObject(
                    "select count(*) from scheduled_tasks where task_name = ? and last_success is not null", Integer.class, job) == 1);
        } finally {
            first.stop();
            second.stop();
        }
        assertThat(runs.get()).isEqualTo(1);
        assertThat(databases.business().queryForObject("select picked from scheduled_tasks where task_name = ?", Boolean.class,
                job)).isFalse();
        databases.business().update("delete from scheduled_tasks where task_name = ?", job);
    }

    /**
     * A node that died while running a job (its execution still picked, its heartbeat stale) leaves it to the next node
     * once the missed heartbeats make it dead: here 6 × 200 ms, where db-scheduler's default would wait half an hour.
     */
    @Test
    void aJobPickedByADeadNodeRunsOnALiveOneOnceItsHeartbeatsAreMissing() {
        String job = "probe-" + System.nanoTime();
        AtomicInteger runs = new AtomicInteger();
        RecurringTask<Void> task = Tasks.recurring(job, FixedDelay.of(Duration.ofHours(1)))
                .execute((instance, context) -> runs.incrementAndGet());
        databases.business().update("""
                insert into scheduled_tasks (task_name, task_instance, execution_time, picked, picked_by, last_heartbeat, version)
                values (?, 'recurring', now() - interval '1 minute', true, 'dead-node.tm', now() - interval '1 minute', 1)""", job);
        ClusterScheduler live = new ClusterScheduler(endpoints.business().plainDataSource(), "node-c.tm", List.of(task),
                Duration.ofMillis(200), Duration.ofMillis(200));
        live.start();
        try {
            await().atMost(Duration.ofSeconds(60)).until(() -> runs.get() == 1);
        } finally {
            live.stop();
        }
        assertThat(databases.business().queryForMap("select picked, last_success is not null succeeded from scheduled_tasks"
                + " where task_name = ?", job)).containsEntry("picked", false).containsEntry("succeeded", true);
        databases.business().update("delete from scheduled_tasks where task_name = ?", job);
    }
}
