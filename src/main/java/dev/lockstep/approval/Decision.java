package dev.lockstep.approval;

/** What an approver did on a task. RETURN is only recorded by a return (POST /api/tasks/{id}/return), never accepted on complete. */
public enum Decision {
    APPROVE, REJECT, RETURN
}
