package dev.lockstep.approval.definitions;

import dev.lockstep.platform.LockstepProperties;
import dev.lockstep.platform.StartupCheckFailure;
import dev.lockstep.platform.web.ApiException;
import dev.lockstep.platform.security.DemoGroups;
import dev.lockstep.transactions.workflow.definition.DefinitionRules;
import java.util.Set;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(DefinitionsProperties.class)
class DefinitionsConfiguration {

    /**
     * The size limit is checked at startup. The groups are not: a deployment that never uploads a definition (every
     * one before issue 30) must start as before, so without the setting and without demo users an upload is refused,
     * naming the setting (a definition naming a group nobody is in would leave its tasks with no one to act on them).
     */
    @Bean
    DefinitionLimits definitionLimits(DefinitionsProperties properties, LockstepProperties lockstep) {
        if (properties.maxBytes() < 1024 || properties.maxBytes() > 16 * 1024 * 1024) {
            throw new StartupCheckFailure("lockstep.definitions.max-bytes", properties.maxBytes() + " bytes is out of range.",
                    "set a size between 1024 and 16777216 bytes (default 1048576)");
        }
        if (properties.groups() != null && !properties.groups().isEmpty()) {
            return new DefinitionLimits(Set.copyOf(properties.groups()), properties.maxBytes());
        }
        return new DefinitionLimits(lockstep.runsEmbeddedDatabases() ? DemoGroups.all() : Set.of(), properties.maxBytes());
    }

    /** What every upload is checked against, besides its type's routable fields. */
    record DefinitionLimits(Set<String> knownGroups, int maxBytes) {

        /** Refused (409 DEFINITION_GROUPS_NOT_CONFIGURED) while no group is known: nothing could be checked against them. */
        DefinitionRules rulesFor(Set<String> routableFields) {
            if (knownGroups.isEmpty()) {
                throw ApiException.conflict("DEFINITION_GROUPS_NOT_CONFIGURED", "No candidate groups are configured, so no"
                        + " definition can be checked: set lockstep.definitions.groups to the groups your users' tokens carry.");
            }
            return new DefinitionRules(knownGroups, routableFields, maxBytes);
        }
    }
}
