package dev.lockstep.platform;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerName;
import com.github.kagkarlsson.scheduler.task.helper.RecurringTask;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.context.SmartLifecycle;

/**
 * Recurring background jobs that must run on one node at a time (retention purge; reconciliation and
 * deadlines are meant to join): db-scheduler keeps each job's next execution as a row in
 * {@code scheduled_tasks} of the business database and a node takes it with a compare-and-set on that
 * row, so however many nodes run, one executes it. A node that dies mid-run stops heartbeating and
 * the job is taken over. Jobs run on the scheduler's own plain connection pool, never inside a use
 * case's transaction. Started after the context is ready (Flyway has created the table).
 */
public class ClusterScheduler implements SmartLifecycle {

    private final Scheduler scheduler;
    private volatile boolean running;

    /**
     * @param nodeName this node's name in {@code scheduled_tasks.picked_by} (the transaction manager's unique name)
     */
    public ClusterScheduler(DataSource dataSource, String nodeName, List<RecurringTask<?>> jobs, Duration pollingInterval) {
        this.scheduler = Scheduler.create(dataSource)
                .startTasks(List.copyOf(jobs))
                .schedulerName(new SchedulerName.Fixed(nodeName))
                .pollingInterval(pollingInterval)
                .threads(2)
                .build();
    }

    @Override
    public void start() {
        scheduler.start();
        running = true;
    }

    @Override
    public void stop() {
        scheduler.stop();
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }
}
