package dev.lockstep.transactions.usecase;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A client request that succeeded, keyed by its Idempotency-Key, with the response to replay. */
@Entity
@Table(name = "workflow_command")
public class WorkflowCommand {

    @Id
    private String requestId;
    private String commandType;
    private String businessId;
    private String requestedBy;
    private String requestFingerprint;
    private String commandStatus;
    private Integer responseStatus;
    private String responseBody;

    protected WorkflowCommand() {
    }

    public String getRequestId() {
        return requestId;
    }

    public String getCommandType() {
        return commandType;
    }

    public String getBusinessId() {
        return businessId;
    }

    public String getRequestedBy() {
        return requestedBy;
    }

    public String getRequestFingerprint() {
        return requestFingerprint;
    }

    public Integer getResponseStatus() {
        return responseStatus;
    }

    public String getResponseBody() {
        return responseBody;
    }
}
