package dev.lockstep.approval.definitions;

import dev.lockstep.transactions.workflow.DeployedDefinitions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.stereotype.Component;

/**
 * At startup, after the engine deployed the built-in processes: records their engine versions as versions of the
 * built-in type (docs/approvals.md, "The built-in type's versions"), so APPLICATION's flows are listed, read and drawn
 * like a registered type's, with what runs on each.
 */
@Component
class BuiltInFlowVersions implements ApplicationRunner {

    private static final Logger log = LoggerFactory.getLogger(BuiltInFlowVersions.class);

    private final DefinitionRegistry registry;
    private final DeployedDefinitions engine;

    BuiltInFlowVersions(DefinitionRegistry registry, DeployedDefinitions engine) {
        this.registry = registry;
        this.engine = engine;
    }

    /**
     * Never stops the start: the versions are a record for readers, and a node must come up to serve the recovery
     * console whatever its databases hold; what is not recorded now is recorded at the next start.
     */
    @Override
    public void run(ApplicationArguments args) {
        try {
            registry.recordBuiltInFlows(engine.builtIn());
        } catch (RuntimeException e) {
            log.warn("the built-in flows' versions were not recorded at this start (recorded at the next one): {}", e.toString());
        }
    }
}
