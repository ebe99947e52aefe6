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
        RecurringTask<Void> task = hourly(job, runs);
        ClusterScheduler first = node("node-a.tm", task, Duration.ofSeconds(10));
        ClusterScheduler second = node("node-b.tm", task, Duration.ofSeconds(10));
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
        RecurringTask<Void> task = hourly(job, runs);
        databases.business().update("""
                insert into scheduled_tasks (task_name, task_instance, execution_time, picked, picked_by, last_heartbeat, version)
                values (?, 'recurring', now() - interval '1 minute', true, 'dead-node.tm', now() - interval '1 minute', 1)""", job);
        ClusterScheduler live = node("node-c.tm", task, Duration.ofMillis(200));
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

    /** A job due now and then again in an hour, counting its runs. */
    private static RecurringTask<Void> hourly(String job, AtomicInteger runs) {
        return Tasks.recurring(job, FixedDelay.of(Duration.ofHours(1))).execute((instance, context) -> runs.incrementAndGet());
    }

    /** One node's scheduler of {@code task}, polling every 200 ms. */
    private ClusterScheduler node(String name, RecurringTask<Void> task, Duration heartbeat) {
        return new ClusterScheduler(endpoints.business().plainDataSource(), name, List.of(task), Duration.ofMillis(200), heartbeat);
    }
}
