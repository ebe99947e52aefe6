package dev.lockstep.approval.deadlines;

import dev.lockstep.approval.todo.TaskProjection;
import dev.lockstep.approval.todo.TaskProjection.DueStep;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.activiti.engine.ProcessEngine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Fires the reminders, escalations and final deadlines that are due, as a job of the cluster scheduler (one node at a
 * time): reads the steps whose open tasks' reminder, escalation or final deadline has passed on the engine's clock and
 * is not claimed yet, then fires each step in a JTA transaction of its own over both databases ({@link DeadlineFirings}:
 * the application held as for a decision, the step claimed by a compare-and-set on its projection rows, so a second node
 * or a retry finds nothing to claim and rolls back). A firing that fails (application frozen, a predecessor's workflow
 * commit pending, a policy that lost its escalation group or final action) is rolled back and tried again by the next
 * scan.
 */
class DeadlineScan {

    private static final Logger log = LoggerFactory.getLogger(DeadlineScan.class);

    /** Steps of each kind read per pass; a full pass is followed by another, so a backlog drains in one run. */
    static final int BATCH = 100;

    private final TransactionTemplate transaction;
    private final TaskProjection projection;
    private final Deadlines deadlines;
    private final ProcessEngine engine;
    private final DeadlineMetrics metrics;

    DeadlineScan(PlatformTransactionManager transactionManager, TaskProjection projection, Deadlines deadlines, ProcessEngine engine,
            DeadlineMetrics metrics) {
        this.transaction = new TransactionTemplate(transactionManager);
        this.projection = projection;
        this.deadlines = deadlines;
        this.engine = engine;
        this.metrics = metrics;
    }

    /** One run: passes until a pass finds less than a batch of either kind, or fires none of what it found. */
    void run() {
        while (true) {
            Instant now = engine.getProcessEngineConfiguration().getClock().getCurrentTime().toInstant();
            List<DueStep> due = transaction.execute(status -> projection.dueSteps(now, BATCH));
            int fired = 0;
            for (DueStep step : due) {
                fired += fire(step) ? 1 : 0;
            }
            boolean full = Stream.of(DueStep.Kind.values()).anyMatch(kind -> due.stream().filter(step -> step.kind() == kind).count() == BATCH);
            if (!full || fired == 0) {
                return;
            }
        }
    }

    private boolean fire(DueStep step) {
        Firing firing = new Firing(step.applicationId(), step.processInstanceId(), step.step(), step.stepName());
        try {
            return Boolean.TRUE.equals(transaction.execute(status -> {
                boolean fired = switch (step.kind()) {
                    case REMIND -> deadlines.remind(firing);
                    case ESCALATE -> deadlines.escalate(firing);
                    case FINAL -> deadlines.expire(firing);
                };
                if (!fired) {
                    // claimed by another scan meanwhile: leave nothing behind, not even the pass through the action fence
                    status.setRollbackOnly();
                }
                return fired;
            }));
        } catch (RuntimeException e) {
            metrics.scanFailed();
            log.warn("{} of step {} on application {} failed; the next deadline scan tries again: {}", step.kind(), step.step(),
                    step.applicationId(), e.toString());
            return false;
        }
    }
}
