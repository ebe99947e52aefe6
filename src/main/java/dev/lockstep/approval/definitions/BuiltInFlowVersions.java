package dev.lockstep.approval.definitions;

import dev.lockstep.transactions.workflow.DeployedDefinitions;
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

    private final DefinitionRegistry registry;
    private final DeployedDefinitions engine;

    BuiltInFlowVersions(DefinitionRegistry registry, DeployedDefinitions engine) {
        this.registry = registry;
        this.engine = engine;
    }

    @Override
    public void run(ApplicationArguments args) {
        registry.recordBuiltInFlows(engine.builtIn());
    }
}
