package dev.lockstep.transactions.workflow.definition;

import dev.lockstep.platform.AreaApi;
import java.util.Set;

/**
 * What an uploaded definition is checked against: the candidate groups that exist, the fields of its
 * business type a condition may compare, and the largest document accepted.
 */
@AreaApi
public record DefinitionRules(Set<String> knownGroups, Set<String> routableFields, int maxBytes) {

    public DefinitionRules {
        knownGroups = Set.copyOf(knownGroups);
        routableFields = Set.copyOf(routableFields);
    }
}
