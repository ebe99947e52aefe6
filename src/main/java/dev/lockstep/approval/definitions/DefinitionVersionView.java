package dev.lockstep.approval.definitions;

import dev.lockstep.transactions.workflow.definition.CountersignPolicy;
import java.time.Instant;
import java.util.List;

/**
 * One version of a business type's approval definition. {@code countersign}: the policy of its countersign step, null
 * without one; {@code engineDefinitionId}: set once it was deployed;
 * {@code runningInstances}: how many process instances run on it now (null before deployment);
 * {@code openChange}: the proposal waiting for a second admin, if any.
 */
record DefinitionVersionView(String typeKey, int version, String state, String processKey, String name, List<String> steps,
        CountersignPolicy countersign, String engineDefinitionId, Long runningInstances, String proposedBy, Instant proposedAt, String decidedBy,
        Instant decidedAt, OpenChange openChange) {

    record OpenChange(long id, String action, String proposedBy, Instant proposedAt) {
    }
}
