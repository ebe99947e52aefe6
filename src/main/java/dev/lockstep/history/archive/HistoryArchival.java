package dev.lockstep.history.archive;

import dev.lockstep.platform.audit.AuditRecord;
import dev.lockstep.platform.audit.AuditTrail;
import dev.lockstep.platform.audit.AuditTrail.Chaining;
import dev.lockstep.transactions.monitoring.TransactionLogContext;
import dev.lockstep.transactions.workflow.ApprovalProcess;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.persistence.EntityManager;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.activiti.engine.HistoryService;
import org.activiti.engine.history.HistoricActivityInstance;
import org.activiti.engine.history.HistoricIdentityLink;
import org.activiti.engine.history.HistoricProcessInstance;
import org.activiti.engine.history.HistoricTaskInstance;
import org.activiti.engine.history.HistoricVariableInstance;
import org.activiti.engine.impl.persistence.entity.HistoricIdentityLinkEntity;
import org.hibernate.Session;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Moves ended processes older than {@code min-age} out of the engine's history into the archive
 * ({@link HistoryArchive}), a batch at a time. A batch is one XA transaction over both databases: the
 * control row's lock (one batch at a time, and the pause switch), the history read through the
 * engine's API, the archive rows, the engine's own deletion of that history and the batch's audit
 * entry commit together or not at all, so a crash mid-batch neither loses nor doubles a row.
 */
public class HistoryArchival {

    private static final Logger log = LoggerFactory.getLogger(HistoryArchival.class);

    static final String SCHEDULER = "history-archival";
    static final String PAUSED = "paused";

    /**
     * What one batch did; {@code paused} when it found archival paused and moved nothing; {@code cutShort} when it
     * reached {@code batch-time-limit} and committed what it had moved, leaving due processes to the next batch.
     */
    public record Batch(int processes, int rows, long millis, boolean paused, boolean cutShort) {
    }

    /** What one run did: its batches in order, and why it stopped. */
    public record Run(List<Batch> batches, String stoppedBecause) {

        public int processes() {
            return batches.stream().mapToInt(Batch::processes).sum();
        }

        public int rows() {
            return batches.stream().mapToInt(Batch::rows).sum();
        }
    }

    private final TransactionTemplate transaction;
    private final EntityManager entityManager;
    private final HistoryService history;
    private final HistoryArchive archive;
    private final AuditTrail audit;
    private final ArchivalProperties settings;
    private final Clock clock;
    private final Timer batchTimer;
    private final Counter processesMoved;
    private final Counter rowsMoved;
    private final Counter failures;
    private final AtomicLong historySize = new AtomicLong();
    private final AtomicReference<Instant> oldestEnded = new AtomicReference<>();

    HistoryArchival(PlatformTransactionManager transactionManager, EntityManager entityManager, HistoryService history,
            HistoryArchive archive, AuditTrail audit, ArchivalProperties settings, Clock clock, MeterRegistry meters) {
        this.transaction = new TransactionTemplate(transactionManager);
        this.entityManager = entityManager;
        this.history = history;
        this.archive = archive;
        this.audit = audit;
        this.settings = settings;
        this.clock = clock;
        this.batchTimer = Timer.builder("lockstep.archival.batch").description("time per archival batch (one XA transaction)")
                .register(meters);
        this.processesMoved = meters.counter("lockstep.archival.moved", "kind", "process");
        this.rowsMoved = meters.counter("lockstep.archival.moved", "kind", "row");
        this.failures = meters.counter("lockstep.archival.batch.failures");
        Gauge.builder("lockstep.archival.history.processes", historySize, AtomicLong::get)
                .description("historic process instances in the engine's history, as of the last archival run").register(meters);
        Gauge.builder("lockstep.archival.oldest.unarchived.age", this, HistoryArchival::oldestUnarchivedAgeSeconds)
                .description("seconds since the oldest ended process still in the engine's history ended").baseUnit("seconds")
                .register(meters);
    }

    /** The scheduled run: measures the history, then moves batches while inside the quiet window and not paused. */
    public Run scheduled() {
        refreshMeasures();
        if (!settings.window().contains(clock.instant())) {
            return new Run(List.of(), "outside the quiet window " + settings.window());
        }
        return run(Integer.MAX_VALUE, SCHEDULER, true);
    }

    /** An operator's run: up to {@code maxBatches} batches now, whatever the hour; audited as theirs. */
    public Run onDemand(int maxBatches, String actor) {
        Run run = run(maxBatches, actor, false);
        refreshMeasures();
        return run;
    }

    private Run run(int maxBatches, String actor, boolean withinWindow) {
        List<Batch> batches = new ArrayList<>();
        while (true) {
            Batch batch = moveBatch(actor);
            if (batch.paused()) {
                return new Run(batches, PAUSED);
            }
            batches.add(batch);
            if (batch.processes() < settings.batchSize() && !batch.cutShort()) {
                return new Run(batches, "nothing more is due");
            }
            if (batches.size() >= maxBatches) {
                return new Run(batches, "batch limit reached");
            }
            if (withinWindow && !settings.window().contains(clock.instant())) {
                return new Run(batches, "the quiet window " + settings.window() + " closed");
            }
            try {
                Thread.sleep(settings.pauseBetweenBatches().toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new Run(batches, "interrupted");
            }
        }
    }

    /** One batch, one XA transaction; throws (and leaves history and archive as they were) when any part fails. */
    Batch moveBatch(String actor) {
        long started = System.nanoTime();
        // microseconds: what the archive's timestamp keeps, so the audit entry names it exactly
        Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
        Instant cutoff = now.minus(settings.minAge());
        Batch batch;
        try {
            batch = transaction.execute(status -> {
                if (archive.lockControl().paused()) {
                    return new Batch(0, 0, 0, true, false);
                }
                List<HistoricProcessInstance> due = history.createHistoricProcessInstanceQuery().finished()
                        .finishedBefore(Date.from(cutoff)).orderByProcessInstanceEndTime().asc().orderByProcessInstanceId().asc()
                        .listPage(0, settings.batchSize());
                int moved = 0;
                int rows = 0;
                // the engine's deletion gets slower as its history grows: stop well inside the transaction timeout
                long timeUp = started + settings.batchTimeLimit().toNanos();
                for (HistoricProcessInstance instance : due) {
                    ArchivedProcess process = read(instance);
                    archive.write(process, now);
                    history.deleteHistoricProcessInstance(instance.getId());
                    rows += process.rows();
                    moved++;
                    if (System.nanoTime() - timeUp > 0) {
                        break;
                    }
                }
                if (moved > 0) {
                    audit(actor, "HISTORY_ARCHIVED", moved + " ended process(es), " + rows + " history rows, ended before "
                            + cutoff + ", moved to archived_process with archived_at " + now);
                }
                return new Batch(moved, rows, 0, false, moved < due.size());
            });
        } catch (RuntimeException e) {
            failures.increment();
            log.error("history archival batch rolled back, history and archive unchanged: {}", e.toString());
            throw e;
        }
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        if (batch.paused()) {
            return batch;
        }
        batchTimer.record(took);
        processesMoved.increment(batch.processes());
        rowsMoved.increment(batch.rows());
        log.info("history archival batch moved {} process(es), {} rows in {} ms{}", batch.processes(), batch.rows(), took.toMillis(),
                batch.cutShort() ? " (cut short by lockstep.archival.batch-time-limit)" : "");
        return new Batch(batch.processes(), batch.rows(), took.toMillis(), false, batch.cutShort());
    }

    /**
     * Pauses or resumes archival, audited in the same transaction. Waits for a batch in flight (it holds the
     * control row), so once a pause returns no batch runs until a resume.
     */
    public HistoryArchive.Control setPaused(boolean paused, String actor, String reason) {
        return transaction.execute(status -> {
            boolean wasPaused = archive.lockControl().paused();
            Instant now = clock.instant();
            archive.setPaused(paused, actor, now, reason);
            audit(actor, paused ? "HISTORY_ARCHIVAL_PAUSED" : "HISTORY_ARCHIVAL_RESUMED",
                    "history archival " + (wasPaused ? "was paused" : "was running") + "; reason: " + reason);
            return new HistoryArchive.Control(paused, actor, now, reason);
        });
    }

    /** The switch, the last measures and the archive's size, for the admin endpoint. */
    public Map<String, Object> status() {
        Map<String, Object> status = new LinkedHashMap<>();
        transaction.executeWithoutResult(tx -> {
            HistoryArchive.Control control = archive.control();
            status.put("paused", control.paused());
            status.put("changedBy", control.changedBy());
            status.put("changedAt", control.changedAt());
            status.put("reason", control.reason());
            status.put("archivedProcesses", archive.processCount());
        });
        status.put("historyProcesses", historySize.get());
        status.put("oldestUnarchivedEndedAt", oldestEnded.get());
        status.put("minAge", settings.minAge().toString());
        status.put("batchSize", settings.batchSize());
        status.put("batchTimeLimit", settings.batchTimeLimit().toString());
        status.put("quietWindow", settings.window().toString());
        return status;
    }

    private void audit(String actor, String action, String detail) {
        entityManager.unwrap(Session.class).doWork(c -> audit.append(c,
                AuditRecord.control(actor, action, TransactionLogContext.currentGtrid(), detail), Chaining.AFTER_COMMIT));
    }

    /** Everything the engine's history holds for one ended process, read through its query API. */
    private ArchivedProcess read(HistoricProcessInstance instance) {
        String id = instance.getId();
        List<HistoricTaskInstance> tasks = history.createHistoricTaskInstanceQuery().processInstanceId(id).list();
        List<HistoricVariableInstance> variables = history.createHistoricVariableInstanceQuery().processInstanceId(id).list();
        List<HistoricActivityInstance> activities = history.createHistoricActivityInstanceQuery().processInstanceId(id).list();
        // the interface has no id; the engine's entity does, and the archive is keyed on it. The links for a task
        // include one the query makes up from the task's assignee (no id, no row): the archived task keeps that.
        Map<String, ArchivedProcess.IdentityLink> links = new LinkedHashMap<>();
        Stream.concat(history.getHistoricIdentityLinksForProcessInstance(id).stream(),
                        tasks.stream().flatMap(task -> history.getHistoricIdentityLinksForTask(task.getId()).stream()))
                .map(HistoricIdentityLinkEntity.class::cast)
                .filter(link -> link.getId() != null)
                .forEach(link -> links.putIfAbsent(link.getId(), identityLink(link)));
        String outcome = variables.stream()
                .filter(variable -> ApprovalProcess.OUTCOME.equals(variable.getVariableName()) && variable.getTaskId() == null)
                .map(variable -> String.valueOf(variable.getValue())).findFirst().orElse(null);
        return new ArchivedProcess(id, instance.getBusinessKey(), instance.getProcessDefinitionId(), instance.getStartUserId(),
                instant(instance.getStartTime()), instant(instance.getEndTime()), instance.getDeleteReason(), outcome,
                activities.stream().map(a -> new ArchivedProcess.Activity(a.getId(), a.getActivityId(), a.getActivityName(),
                        a.getActivityType(), a.getAssignee(), a.getTaskId(), instant(a.getStartTime()), instant(a.getEndTime()),
                        a.getDeleteReason())).toList(),
                tasks.stream().map(t -> new ArchivedProcess.Task(t.getId(), id, t.getTaskDefinitionKey(), t.getName(),
                        t.getAssignee(), t.getOwner(), instant(t.getCreateTime()), instant(t.getEndTime()), t.getDeleteReason()))
                        .toList(),
                variables.stream().map(v -> new ArchivedProcess.Variable(v.getId(), v.getTaskId(), v.getVariableName(),
                        v.getVariableTypeName(), v.getValue() == null ? null : String.valueOf(v.getValue()))).toList(),
                List.copyOf(links.values()));
    }

    private static ArchivedProcess.IdentityLink identityLink(HistoricIdentityLinkEntity link) {
        return new ArchivedProcess.IdentityLink(link.getId(), link.getTaskId(), link.getType(), link.getUserId(), link.getGroupId());
    }

    /** Two cheap engine queries (a count, and the first row by end time) for the gauges. */
    void refreshMeasures() {
        historySize.set(history.createHistoricProcessInstanceQuery().count());
        List<HistoricProcessInstance> oldest = history.createHistoricProcessInstanceQuery().finished()
                .orderByProcessInstanceEndTime().asc().listPage(0, 1);
        oldestEnded.set(oldest.isEmpty() ? null : instant(oldest.get(0).getEndTime()));
    }

    private double oldestUnarchivedAgeSeconds() {
        Instant oldest = oldestEnded.get();
        return oldest == null ? 0 : Duration.between(oldest, clock.instant()).toSeconds();
    }

    private static Instant instant(Date date) {
        return date == null ? null : date.toInstant();
    }
}
