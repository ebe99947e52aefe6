package dev.lockstep.platform;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerName;
import com.github.kagkarlsson.scheduler.task.helper.RecurringTask;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.context.SmartLifecycle;

/**
 * Recurring background jobs that must run on one node at a time (retention purge, reconciliation, history
 * archival, audit checkpoints, the deadline scan): db-scheduler keeps each job's next execution as a row in
 * {@code scheduled_tasks} of the business database and a node takes it with a compare-and-set on that
 * row, so however many nodes run, one executes it. A node that dies mid-run stops heartbeating and
 * the job is taken over once {@link #MISSED_HEARTBEATS} heartbeats are missing (db-scheduler's default, 5 min
 * apart, would leave a job such as the deadline scan to a dead node, or to its own restart, for half an hour). Jobs run on the scheduler's own plain connection pool, never inside a use
 * case's transaction. Started after the context is ready (Flyway has created the table).
 */
public class ClusterScheduler implements SmartLifecycle {

    private final DataSource dataSource;
    private final String nodeName;
    private final List<RecurringTask<?>> jobs;
    /** Missed heartbeats after which a picked execution is dead and runs again (db-scheduler's default). */
    static final int MISSED_HEARTBEATS = 6;

    private final Duration pollingInterval;
    private final Duration heartbeatInterval;
    private volatile Scheduler scheduler;

    /**
     * @param nodeName this node's name in {@code scheduled_tasks.picked_by} (the transaction manager's unique name)
     * @param heartbeatInterval how often a node marks the executions it runs as alive
     */
    public ClusterScheduler(DataSource dataSource, String nodeName, List<RecurringTask<?>> jobs, Duration pollingInterval,
            Duration heartbeatInterval) {
        this.dataSource = dataSource;
        this.nodeName = nodeName;
        this.jobs = List.copyOf(jobs);
        this.pollingInterval = pollingInterval;
        this.heartbeatInterval = heartbeatInterval;
    }

    /** A db-scheduler {@link Scheduler} cannot start again once stopped, so every start builds a new one. */
    @Override
    public synchronized void start() {
        scheduler = Scheduler.create(dataSource)
                .startTasks(jobs)
                .schedulerName(new SchedulerName.Fixed(nodeName))
                .pollingInterval(pollingInterval)
                .heartbeatInterval(heartbeatInterval)
                .missedHeartbeatsLimit(MISSED_HEARTBEATS)
                .threads(2)
                .build();
        scheduler.start();
    }

    @Override
    public synchronized void stop() {
        if (scheduler != null) {
            scheduler.stop();
            scheduler = null;
        }
    }

    @Override
    public boolean isRunning() {
        return scheduler != null;
    }
}
