package dev.lockstep.approval.trail;

import dev.lockstep.approval.Application;
import dev.lockstep.approval.trail.ApplicationEvent.Kind;
import dev.lockstep.platform.audit.AuditEntryFormat;
import dev.lockstep.platform.audit.AuditRecord;
import dev.lockstep.platform.audit.AuditTrail;
import dev.lockstep.platform.audit.AuditTrail.Chaining;
import dev.lockstep.platform.security.Caller;
import dev.lockstep.transactions.monitoring.TransactionLogContext;
import dev.lockstep.transactions.usecase.UseCaseCall;
import dev.lockstep.transactions.workflow.ApprovalProcess.OpenTask;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.hibernate.Session;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Component;

/**
 * Records what happens to an application in the use case's own transaction: every decision and control action as
 * one entry of the hash-chained audit trail, and a withdrawal, termination, deadline firing or signer change also as
 * an application_event row. Both are written on Hibernate's connection of the business XA DataSource, the same branch
 * as the use case's other business writes, so they commit or roll back with it.
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

    /**
     * The audit entry of one decision or action of {@code call}'s caller on {@code application} ({@code action}: e.g.
     * TASK_APPROVED; {@code detail}: what the rules checked). Chained in the {@code audit-chain} job's next batch, not
     * after this commit: one lock of the chain per request would serialise every decision.
     */
    public void audit(Application application, String action, UseCaseCall call, String detail, Instant now) {
        Caller caller = call.caller();
        audit(application, caller.id(), AuditRecord.roles(caller.roles()), action, call.requestId(), detail, Chaining.BATCHED,
                now);
    }

    private void audit(Application application, String actor, String roles, String action, String requestId, String detail,
            Chaining chaining, Instant now) {
        // In the XA deployment the entry waits in the intake until the use case commits (a prepared branch must not
        // hold the chain's lock); in the single-database one it is chained at once.
        entityManager.unwrap(Session.class).doWork(connection -> AuditTrail.appendWithin(audit.getIfAvailable(), connection,
                now, new AuditRecord(actor, roles, action, application.getId(), application.getLifecycleNo(),
                        definitionOf(application, connection), requestId, TransactionLogContext.currentGtrid(), detail),
                chaining));
    }

    /**
     * Which rules the application runs under, readably: "expense-claim v3" for a registered type; for a built-in
     * application the version its engine definition was recorded as ("APPLICATION v2"), or the engine's own
     * numbering where that record is missing (a node whose start could not record it).
     */
    private static String definitionOf(Application application, Connection connection) throws SQLException {
        if (application.isTyped()) {
            return application.getBusinessType() + " v" + application.getDefinitionVersion();
        }
        if (application.getProcessDefinitionId() == null) {
            return null;
        }
        try (PreparedStatement select = connection.prepareStatement(
                "select type_key, version from definition_version where engine_definition_id = ?")) {
            select.setString(1, application.getProcessDefinitionId());
            try (ResultSet row = select.executeQuery()) {
                return row.next() ? row.getString(1) + " v" + row.getInt(2)
                        : "engine " + application.getProcessDefinitionId();
            }
        }
    }

    /**
     * What the trail keeps of free text a user wrote (a comment, a return's reason): its length and the start of its
     * SHA-256, enough to show that the stored text is the one decided on, without copying it into the chain.
     */
    public static String digest(String label, String text) {
        if (text == null || text.isEmpty()) {
            return "no " + label;
        }
        return label + " " + text.length() + " chars sha256 "
                + AuditEntryFormat.hash("", text).substring(0, 16);
    }

    /** {@code openTasks}: the run's tasks as they were just before the cancel closed them. */
    public void canceled(Application application, Kind kind, String reason, List<OpenTask> openTasks, UseCaseCall call,
            Instant now) {
        String taskIds = openTasks.stream().map(OpenTask::id).collect(Collectors.joining(","));
        String taskNames = openTasks.stream().map(OpenTask::name).collect(Collectors.joining(","));
        Caller caller = call.caller();
        events.saveAndFlush(ApplicationEvent.of(application.getId(), application.getLifecycleNo(),
                application.getProcessInstanceId(), kind, caller.id(), reason, taskIds, taskNames, call.requestId(), now));
        String detail = "application #" + application.getId() + " lifecycle " + application.getLifecycleNo() + " "
                + kind.name().toLowerCase(Locale.ROOT) + ": " + reason + " (open tasks: " + taskNames + " " + taskIds + ")";
        // a termination is a forced action by an admin, which a DBA looks for at once: chained right after its commit
        audit(application, caller.id(), AuditRecord.roles(caller.roles()),
                kind == Kind.TERMINATED ? "APPLICATION_TERMINATED" : "APPLICATION_WITHDRAWN", call.requestId(), detail,
                kind == Kind.TERMINATED ? Chaining.AFTER_COMMIT : Chaining.BATCHED, now);
    }

    /** A step deadline's firing, in the timer job's transaction; {@code tasks}: the step's tasks it concerned. */
    public void deadline(Application application, Kind kind, String reason, List<OpenTask> tasks, Instant now) {
        String taskIds = tasks.stream().map(OpenTask::id).collect(Collectors.joining(","));
        String taskNames = tasks.stream().map(OpenTask::name).collect(Collectors.joining(","));
        events.saveAndFlush(ApplicationEvent.of(application.getId(), application.getLifecycleNo(),
                application.getProcessInstanceId(), kind, DEADLINE_ACTOR, reason, taskIds, taskNames, null, now));
        audit(application, DEADLINE_ACTOR, null, "DEADLINE_" + kind.name(), null, reason + " (tasks: " + taskNames + " "
                + taskIds + ")", Chaining.BATCHED, now);
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
        audit(application, kind.name(), call, "signer " + signerId + " " + (kind == Kind.SIGNER_ADDED ? "added" : "removed")
                + " on " + task.name() + " (task " + task.id() + "): " + reason, now);
    }

    public List<ApplicationEvent> of(long applicationId) {
        return events.findByApplicationIdOrderByOccurredAt(applicationId);
    }
}
