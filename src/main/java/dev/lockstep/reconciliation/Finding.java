package dev.lockstep.reconciliation;

/** One difference a rule found on one application. */
public record Finding(String ruleId, Classification classification, String difference, String processInstanceId,
        String processDefinitionId) {
}
