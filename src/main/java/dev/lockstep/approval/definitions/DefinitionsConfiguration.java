package dev.lockstep.approval.definitions;

import dev.lockstep.platform.LockstepProperties;
import dev.lockstep.platform.StartupCheckFailure;
import dev.lockstep.platform.security.DemoGroups;
import dev.lockstep.transactions.workflow.definition.DefinitionRules;
import java.util.Set;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(DefinitionsProperties.class)
class DefinitionsConfiguration {

    /** Checked at startup: a definition naming a group nobody is in would leave its tasks with no one to act on them. */
    @Bean
    DefinitionLimits definitionLimits(DefinitionsProperties properties, LockstepProperties lockstep) {
        if (properties.maxBytes() < 1024 || properties.maxBytes() > 16 * 1024 * 1024) {
            throw new StartupCheckFailure("lockstep.definitions.max-bytes", properties.maxBytes() + " bytes is out of range.",
                    "set a size between 1024 and 16777216 bytes (default 1048576)");
        }
        Set<String> groups;
        if (properties.groups() != null && !properties.groups().isEmpty()) {
            groups = Set.copyOf(properties.groups());
        } else if (lockstep.runsEmbeddedDatabases()) {
            groups = DemoGroups.all();
        } else {
            throw new StartupCheckFailure("lockstep.definitions.groups",
                    "is not set, and with databases the operator runs there are no demo users whose groups could stand in.",
                    "list the candidate groups an approval definition may name (the groups your users' tokens carry)");
        }
        return new DefinitionLimits(groups, properties.maxBytes());
    }

    /** What every upload is checked against, besides its type's routable fields. */
    record DefinitionLimits(Set<String> knownGroups, int maxBytes) {

        DefinitionRules rulesFor(Set<String> routableFields) {
            return new DefinitionRules(knownGroups, routableFields, maxBytes);
        }
    }
}
