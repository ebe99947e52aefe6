package dev.lockstep.approval.handover;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/** One delegation, resolution or transfer of a task, or one signer added or removed: who, from whom to whom, and why. */
@Entity
@Table(name = "task_handover")
public class TaskHandover {

    public enum Kind { DELEGATE, RESOLVE, TRANSFER, ADD_SIGNER, REMOVE_SIGNER }

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;
    private long applicationId;
    private String processInstanceId;
    private String taskId;
    @Enumerated(EnumType.STRING)
    private Kind kind;
    private String fromUser;
    private String toUser;
    // quoted: COMMENT is a reserved word on Oracle (the Oracle migration quotes it too)
    @Column(name = "\"comment\"")
    private String comment;
    private String actedBy;
    private String requestId;
    private Instant actedAt;

    protected TaskHandover() {
    }

    public static TaskHandover of(long applicationId, String processInstanceId, String taskId, Kind kind, String fromUser,
            String toUser, String comment, String actedBy, String requestId, Instant actedAt) {
        TaskHandover handover = new TaskHandover();
        handover.applicationId = applicationId;
        handover.processInstanceId = processInstanceId;
        handover.taskId = taskId;
        handover.kind = kind;
        handover.fromUser = fromUser;
        handover.toUser = toUser;
        handover.comment = comment;
        handover.actedBy = actedBy;
        handover.requestId = requestId;
        handover.actedAt = actedAt;
        return handover;
    }
}
