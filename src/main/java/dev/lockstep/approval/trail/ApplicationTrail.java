package dev.lockstep.approval.trail;

import dev.lockstep.approval.Application;
import dev.lockstep.approval.trail.ApplicationEvent.Kind;
import dev.lockstep.platform.audit.AuditTrail;
import dev.lockstep.transactions.usecase.UseCaseCall;
import dev.lockstep.transactions.workflow.ApprovalProcess.OpenTask;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Instant;
import java.util.List;
import java.util.stream.Collectors;
import org.hibernate.Session;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Component;

/**
 * Records a withdrawal, termination or signer change in the use case's own transaction: the
 * application_event row and, for a termination (a forced action by an admin), an entry of the
 * hash-chained audit trail.
 * Both are written on Hibernate's connection of the business XA DataSource, the same branch as the
 * cancel's other business writes, so they commit or roll back with the cancel.
 */
@Component
public class ApplicationTrail {

    /** The actor of every entry a step deadline writes: no person decided it. */
    public static final String DEADLINE_ACTOR = "deadline";

    private final ApplicationEventRepository events;
    private final ObjectProvider<AuditTrail> audit;

    @PersistenceContext
    private EntityManager entityManager;

    /** {@code audit}: present in the XA deployment; the single-database one has no two-phase transactions. */
    ApplicationTrail(ApplicationEventRepository events, ObjectProvider<AuditTrail> audit) {
        this.events = events;
        this.audit = audit;
    }

    /** {@code openTasks}: the run's tasks as they were just before the cancel closed them. */
    public void canceled(Application application, Kind kind, String reason, List<OpenTask> openTasks, UseCaseCall call,
            Instant now) {
        String taskIds = openTasks.stream().map(OpenTask::id).collect(Collectors.joining(","));
        String taskNames = openTasks.stream().map(OpenTask::name).collect(Collectors.joining(","));
        String actor = call.caller().id();
        events.saveAndFlush(ApplicationEvent.of(application.getId(), application.getLifecycleNo(),
                application.getProcessInstanceId(), kind, actor, reason, taskIds, taskNames, call.requestId(), now));
        if (kind == Kind.TERMINATED) {
            String detail = "application #" + application.getId() + " lifecycle " + application.getLifecycleNo()
                    + " terminated: " + reason + " (open tasks: " + taskIds + ")";
            // In the XA deployment the entry waits in the intake until the cancel commits (a prepared
            // branch must not hold the chain's lock); in the single-database one it is chained at once.
            entityManager.unwrap(Session.class).doWork(connection -> AuditTrail.appendWithin(audit.getIfAvailable(), connection, now,
                    actor, "APPLICATION_TERMINATED", detail));
        }
    }

    /** A step deadline's firing, in the timer job's transaction; {@code tasks}: the step's tasks it concerned. */
    public void deadline(Application application, Kind kind, String reason, List<OpenTask> tasks, Instant now) {
        events.saveAndFlush(ApplicationEvent.of(application.getId(), application.getLifecycleNo(),
                application.getProcessInstanceId(), kind, DEADLINE_ACTOR, reason,
                tasks.stream().map(OpenTask::id).collect(Collectors.joining(",")),
                tasks.stream().map(OpenTask::name).collect(Collectors.joining(",")), null, now));
    }

    /**
     * 加签 / 减签: {@code signerId} was added to or removed from the application's running countersign; {@code task}: the
     * signer task the change created or closed.
     */
    public void signerChanged(Application application, Kind kind, String signerId, OpenTask task, String reason,
            UseCaseCall call, Instant now) {
        if (kind != Kind.SIGNER_ADDED && kind != Kind.SIGNER_REMOVED) {
            throw new IllegalArgumentException(kind + " is no signer change");
        }
        events.saveAndFlush(ApplicationEvent.signerChange(application.getId(), application.getLifecycleNo(),
                application.getProcessInstanceId(), kind, signerId, call.caller().id(), reason, task.id(), task.name(),
                call.requestId(), now));
    }

    public List<ApplicationEvent> of(long applicationId) {
        return events.findByApplicationIdOrderByOccurredAt(applicationId);
    }
}
