package dev.lockstep.transactions.workflow;

import dev.lockstep.platform.AreaApi;
import org.activiti.engine.RepositoryService;
import org.activiti.engine.RuntimeService;
import org.activiti.engine.repository.Deployment;
import org.springframework.stereotype.Component;

/**
 * Puts a checked approval definition into the engine and reads back how much runs on it. The deployment joins
 * the caller's JTA transaction: if the activation it belongs to rolls back, so does the deployment.
 */
@Component
@AreaApi
public class DeployedDefinitions {

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
        Deployment deployment = repository.createDeployment().name(name)
                .addBytes(processKey + ".bpmn20.xml", deployableXml).deploy();
        return repository.createProcessDefinitionQuery().deploymentId(deployment.getId()).processDefinitionKey(processKey)
                .singleResult().getId();
    }

    /** How many process instances run on the engine definition {@code processDefinitionId} now. */
    public long running(String processDefinitionId) {
        return runtime.createProcessInstanceQuery().processDefinitionId(processDefinitionId).count();
    }
}
