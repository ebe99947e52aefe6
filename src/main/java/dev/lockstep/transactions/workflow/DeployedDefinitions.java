package dev.lockstep.transactions.workflow;

import dev.lockstep.platform.AreaApi;
import dev.lockstep.platform.web.ApiException;
import java.sql.SQLException;
import java.time.Duration;
import org.activiti.engine.RepositoryService;
import org.activiti.engine.RuntimeService;
import org.activiti.engine.repository.Deployment;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;

/**
 * Puts a checked approval definition into the engine and reads back how much runs on it. The deployment joins
 * the caller's JTA transaction: if the activation it belongs to rolls back, so does the deployment.
 */
@Component
@AreaApi
public class DeployedDefinitions {

    private static final Duration RETRY_AFTER = Duration.ofSeconds(1);

    private final RepositoryService repository;
    private final RuntimeService runtime;

    DeployedDefinitions(RepositoryService repository, RuntimeService runtime) {
        this.repository = repository;
        this.runtime = runtime;
    }

    /**
     * Deploys {@code deployableXml} (already checked, its process id {@code processKey}) and answers the engine's
     * process definition id; {@code name} labels the deployment, e.g. {@code PAYMENT_RELEASE v3}.
     */
    public String deploy(String processKey, String name, byte[] deployableXml) {
        Deployment deployment;
        try {
            deployment = repository.createDeployment().name(name).addBytes(processKey + ".bpmn20.xml", deployableXml).deploy();
        } catch (RuntimeException e) {
            if (!isUniqueViolation(e)) {
                throw e;
            }
            // The engine numbers a key's next version from what it has committed. The caller's lock on the business type
            // goes with its business branch's commit, a moment before the engine branch's: an activation deploying the
            // same key in that moment takes the number the other is committing, and the whole use case rolls back.
            throw new ApiException(HttpStatus.CONFLICT, "ACTIVATION_CONFLICT", "Another deployment of " + processKey
                    + " was committing at the same moment and took the engine version this one was given; nothing was"
                    + " changed. Decide again.", RETRY_AFTER);
        }
        return repository.createProcessDefinitionQuery().deploymentId(deployment.getId()).processDefinitionKey(processKey)
                .singleResult().getId();
    }

    /** ACT_UNIQ_PROCDEF (key, version, tenant): unique_violation on PostgreSQL, ORA-00001 on Oracle. */
    private static boolean isUniqueViolation(Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof SQLException sql
                    && ("23505".equals(sql.getSQLState()) || (sql.getErrorCode() == 1 && "23000".equals(sql.getSQLState())))) {
                return true;
            }
        }
        return false;
    }

    /** How many process instances run on the engine definition {@code processDefinitionId} now. */
    public long running(String processDefinitionId) {
        return runtime.createProcessInstanceQuery().processDefinitionId(processDefinitionId).count();
    }
}
