package dev.lockstep.approval.todo;

import dev.lockstep.history.archive.ArchivedProcess;
import dev.lockstep.history.archive.HistoryArchive;
import dev.lockstep.platform.AreaApi;
import dev.lockstep.platform.audit.AuditRecord;
import dev.lockstep.platform.audit.AuditTrail;
import dev.lockstep.platform.audit.AuditTrail.Chaining;
import dev.lockstep.platform.web.ApiException;
import dev.lockstep.transactions.monitoring.TransactionLogContext;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.activiti.engine.HistoryService;
import org.activiti.engine.TaskService;
import org.activiti.engine.history.HistoricTaskInstance;
import org.activiti.engine.task.Task;
import org.hibernate.Session;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Service;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Regenerates task_projection rows from the engine, one application at a time: its open tasks from the runtime,
 * its ended ones from history, through the same mapping as the end-of-command {@link TaskProjectionRefresh}, and
 * those of its archived processes from the history archive. Each application's rows are rewritten under its row
 * lock, the lock every task command takes first, so a rewrite and a command on that application never overlap;
 * no table lock, so task commands on every other application go on meanwhile.
 */
@Service
@AreaApi
public class TaskProjectionRebuild {

    static final String AUDIT_ACTION = "TASK_PROJECTION_REBUILT";

    /** What a rebuild of the whole projection did: applications rewritten, rows written, batches (transactions) committed. */
    public record Result(int applications, int rows, int batches) {
    }

    private record Batch(int applications, long lastId, int rows) {
    }

    private final TaskProjection projection;
    private final HistoryService history;
    private final TaskService tasks;
    private final TaskProjectionRefresh refresh;
    private final HistoryArchive archive;
    private final FinalDeadlines finalDeadlines;
    private final TransactionTemplate transaction;
    private final ObjectProvider<AuditTrail> audit;
    private final Clock clock;

    @PersistenceContext
    private EntityManager entityManager;

    /** {@code audit}: present in the XA deployment; the single-database one chains its entries at once. */
    public TaskProjectionRebuild(TaskProjection projection, HistoryService history, TaskService tasks,
            TaskProjectionRefresh refresh, HistoryArchive archive, FinalDeadlines finalDeadlines,
            PlatformTransactionManager transactionManager, ObjectProvider<AuditTrail> audit, Clock clock) {
        this.projection = projection;
        this.history = history;
        this.tasks = tasks;
        this.refresh = refresh;
        this.archive = archive;
        this.finalDeadlines = finalDeadlines;
        this.transaction = new TransactionTemplate(transactionManager);
        this.audit = audit;
        this.clock = clock;
    }

    /**
     * Inside the caller's transaction, under the application's row lock (taken here; a caller such as a reconciliation
     * repair already holds it): deletes the application's rows and writes them again, keeping the projection's own
     * deadline marks. Returns the number of rows written; no other application's row is touched.
     */
    @Transactional(propagation = Propagation.MANDATORY)
    public int rewriteApplication(long applicationId) {
        if (!projection.lockApplication(applicationId)) {
            return 0;
        }
        // due dates and overdue marks are the projection's own record (set by the deadline listener), not engine facts
        Map<String, TaskProjection.DeadlineMarks> deadlineMarks = projection.deadlineMarksOf(applicationId);
        projection.deleteApplication(applicationId);
        // waits for an archival batch in flight: a process it moves is then in history or in the archive, never in neither
        archive.lockControl();
        String businessKey = Long.toString(applicationId);
        Map<String, Task> open = TaskProjectionRefresh.openTasks(tasks.createTaskQuery().processInstanceBusinessKey(businessKey).list());
        int rows = 0;
        for (HistoricTaskInstance task : history.createHistoricTaskInstanceQuery().processInstanceBusinessKey(businessKey).list()) {
            projection.save(refresh.project(task, open), businessKey);
            rows++;
        }
        for (ArchivedProcess.Task archived : archive.tasksOf(businessKey)) {
            projection.save(ProjectedTask.archived(archived), businessKey);
            rows++;
        }
        deadlineMarks.forEach(projection::restore);
        // a row the projection had lost: its final deadline comes back from the policy; its reminder and escalation do
        // not, since whether they fired is not known
        open.values().stream().filter(task -> !deadlineMarks.containsKey(task.getId())).forEach(task -> {
            Instant finalAt = finalDeadlines.of(task);
            if (finalAt != null) {
                projection.restore(task.getId(), new TaskProjection.DeadlineMarks(null, null, null, null, finalAt));
            }
        });
        return rows;
    }

    /**
     * The administrators' rebuild of the whole projection: applications in id order, {@code batchSize} of them per
     * XA transaction, each rewritten by {@link #rewriteApplication}, with the batch's audit entry in the same
     * transaction. A batch holds only its own applications' row locks, so a task command elsewhere waits for none.
     */
    public Result rebuildAll(int batchSize, String actor) {
        int applications = 0;
        int rows = 0;
        int batches = 0;
        long after = 0;
        while (true) {
            long from = after;
            Batch batch;
            try {
                batch = transaction.execute(status -> batch(from, batchSize, actor));
            } catch (RuntimeException e) {
                throw ApiException.retryLater("TASK_PROJECTION_REBUILD_INTERRUPTED", "the batch after application " + from
                        + " rolled back (" + e.getMessage() + "); the " + applications + " application(s) before it were rewritten"
                        + " (" + rows + " rows, " + batches + " batch(es)) and stay so. Retry: a rebuild starts from the first"
                        + " application and rewrites each from the engine again, so a repeat changes nothing twice.");
            }
            if (batch.applications() == 0) {
                return new Result(applications, rows, batches);
            }
            applications += batch.applications();
            rows += batch.rows();
            batches++;
            after = batch.lastId();
            if (batch.applications() < batchSize) {
                return new Result(applications, rows, batches);
            }
        }
    }

    private Batch batch(long after, int size, String actor) {
        List<Long> ids = projection.applicationsAfter(after, size);
        if (ids.isEmpty()) {
            return new Batch(0, after, 0);
        }
        int rows = 0;
        for (long id : ids) {
            rows += rewriteApplication(id);
        }
        long last = ids.get(ids.size() - 1);
        String detail = "task projection rebuild: applications " + ids.get(0) + " to " + last + " (" + ids.size()
                + ") rewritten from the engine and the archive, " + rows + " rows";
        AuditRecord record = AuditRecord.control(actor, AUDIT_ACTION, TransactionLogContext.currentGtrid(), detail);
        entityManager.unwrap(Session.class).doWork(connection -> AuditTrail.appendWithin(audit.getIfAvailable(), connection,
                clock.instant(), record, Chaining.AFTER_COMMIT));
        return new Batch(ids.size(), last, rows);
    }
}
