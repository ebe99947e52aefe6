package dev.lockstep.transactions.workflow.definition;

import dev.lockstep.transactions.workflow.ReturnTargets;
import java.util.HashMap;
import java.util.Map;

/**
 * The product's own attributes ({@code lockstep:outcome}, {@code lockstep:countersign} and its
 * {@code lockstep:policy} and {@code lockstep:ratio}) and the Camunda Modeler's
 * candidate groups, by element id, as the raw document carries them: Activiti's converter keeps foreign attributes
 * on some elements only (not on end events), so they are read while the document is scanned.
 */
final class ElementMarks {

    static final String LOCKSTEP_NS = ReturnTargets.LOCKSTEP_NS;
    /** Camunda Modeler writes candidate groups here; Activiti does not read it, so the check maps it to the standard field. */
    static final String CAMUNDA_NS = "http://camunda.org/schema/1.0/bpmn";

    private final Map<String, Map<String, String>> byElement = new HashMap<>();

    void record(String elementId, String namespace, String name, String value) {
        if (elementId != null && (LOCKSTEP_NS.equals(namespace) || CAMUNDA_NS.equals(namespace) && "candidateGroups".equals(name))) {
            byElement.computeIfAbsent(elementId, id -> new HashMap<>()).put(namespace + " " + name, value);
        }
    }

    String outcome(String elementId) {
        return value(elementId, LOCKSTEP_NS, "outcome");
    }

    boolean isCountersign(String elementId) {
        return "true".equals(value(elementId, LOCKSTEP_NS, "countersign"));
    }

    /** The countersign step's policy as written; valid only once the check accepted it. */
    CountersignPolicy countersignPolicy(String elementId) {
        return CountersignPolicy.parse(value(elementId, LOCKSTEP_NS, "policy"), value(elementId, LOCKSTEP_NS, "ratio"));
    }

    /** Whether the step carries the built-in flows' mark of deadlines fired by the scan (approval.deadlines.DueDates). */
    boolean hasPolicyDeadlines(String elementId) {
        return value(elementId, LOCKSTEP_NS, "deadlines") != null;
    }

    String camundaCandidateGroups(String elementId) {
        return value(elementId, CAMUNDA_NS, "candidateGroups");
    }

    private String value(String elementId, String namespace, String name) {
        return byElement.getOrDefault(elementId, Map.of()).get(namespace + " " + name);
    }
}
