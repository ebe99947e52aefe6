package dev.lockstep.approval.trail;

import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/**
 * One application-level event of the trail: a withdrawal or termination of a lifecycle, a step
 * deadline's firing, or a signer added to or removed from a running countersign, with who, when, why
 * and which tasks it closed or concerned (their ids and names, comma separated, in the engine's order).
 */
@Entity
@Table(name = "application_event")
public class ApplicationEvent {

    public enum Kind {
        WITHDRAWN, TERMINATED,
        /** Step deadlines (actor {@value ApplicationTrail#DEADLINE_ACTOR}): the candidates reminded, the step escalated. */
        REMINDED, ESCALATED,
        /** A step's final deadline ended the run: rejected, or returned to the applicant. */
        OVERDUE_REJECTED, OVERDUE_RETURNED,
        /** 加签 / 减签 on a running countersign: {@code signerId} names the signer, the task is the one it created or closed. */
        SIGNER_ADDED, SIGNER_REMOVED
    }

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;
    private long applicationId;
    private int lifecycleNo;
    private String processInstanceId;
    @Enumerated(EnumType.STRING)
    private Kind kind;
    private String actorId;
    private String reason;
    private String openTaskIds;
    private String openTaskNames;
    private String requestId;
    private Instant occurredAt;
    private String signerId;

    protected ApplicationEvent() {
    }

    static ApplicationEvent of(long applicationId, int lifecycleNo, String processInstanceId, Kind kind, String actorId,
            String reason, String openTaskIds, String openTaskNames, String requestId, Instant occurredAt) {
        ApplicationEvent event = new ApplicationEvent();
        event.applicationId = applicationId;
        event.lifecycleNo = lifecycleNo;
        event.processInstanceId = processInstanceId;
        event.kind = kind;
        event.actorId = actorId;
        event.reason = reason;
        event.openTaskIds = openTaskIds;
        event.openTaskNames = openTaskNames;
        event.requestId = requestId;
        event.occurredAt = occurredAt;
        return event;
    }

    static ApplicationEvent signerChange(long applicationId, int lifecycleNo, String processInstanceId, Kind kind,
            String signerId, String actorId, String reason, String taskId, String taskName, String requestId, Instant occurredAt) {
        ApplicationEvent event = of(applicationId, lifecycleNo, processInstanceId, kind, actorId, reason, taskId, taskName,
                requestId, occurredAt);
        event.signerId = signerId;
        return event;
    }

    public int getLifecycleNo() {
        return lifecycleNo;
    }

    public String getProcessInstanceId() {
        return processInstanceId;
    }

    public Kind getKind() {
        return kind;
    }

    public String getActorId() {
        return actorId;
    }

    public String getReason() {
        return reason;
    }

    public String getOpenTaskIds() {
        return openTaskIds;
    }

    public String getOpenTaskNames() {
        return openTaskNames;
    }

    public String getRequestId() {
        return requestId;
    }

    public Instant getOccurredAt() {
        return occurredAt;
    }

    /** The signer a {@link Kind#SIGNER_ADDED} / {@link Kind#SIGNER_REMOVED} entry concerns; null for every other kind. */
    public String getSignerId() {
        return signerId;
    }
}
