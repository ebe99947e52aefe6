package dev.lockstep.transactions.workflow;

import dev.lockstep.platform.AreaApi;
import dev.lockstep.platform.web.ApiException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.activiti.bpmn.model.UserTask;
import org.activiti.engine.RepositoryService;
import org.activiti.engine.RuntimeService;
import org.activiti.engine.repository.Deployment;
import org.activiti.engine.repository.ProcessDefinition;
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

    /** One engine version of a built-in process, with the XML it was deployed from and its steps in document order. */
    public record BuiltInDefinition(String engineDefinitionId, String processKey, int engineVersion, String name, String xml,
            List<String> userTaskIds) {
    }

    /**
     * Every engine version of the built-in processes (processes/*.bpmn20.xml, deployed by the engine at startup when
     * their XML changed), ordered by engine version, then key.
     */
    public List<BuiltInDefinition> builtIn() {
        List<BuiltInDefinition> definitions = new ArrayList<>();
        for (String key : List.of(ApprovalProcess.PROCESS_KEY, ApprovalProcess.COUNTERSIGN_PROCESS_KEY)) {
            for (ProcessDefinition definition : repository.createProcessDefinitionQuery().processDefinitionKey(key).list()) {
                String xml;
                try (InputStream in = repository.getResourceAsStream(definition.getDeploymentId(), definition.getResourceName())) {
                    xml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                } catch (IOException e) {
                    throw new UncheckedIOException("reading " + definition.getResourceName() + " of " + definition.getId(), e);
                }
                List<String> steps = repository.getBpmnModel(definition.getId()).getMainProcess()
                        .findFlowElementsOfType(UserTask.class).stream().map(UserTask::getId).toList();
                definitions.add(new BuiltInDefinition(definition.getId(), key, definition.getVersion(), definition.getName(), xml, steps));
            }
        }
        definitions.sort(Comparator.comparingInt(BuiltInDefinition::engineVersion).thenComparing(BuiltInDefinition::processKey));
        return definitions;
    }

    /** How many process instances run on the engine definition {@code processDefinitionId} now. */
    public long running(String processDefinitionId) {
        return runtime.createProcessInstanceQuery().processDefinitionId(processDefinitionId).count();
    }
}
