package dev.lockstep.transactions.workflow;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.activiti.bpmn.model.ExtensionAttribute;
import org.activiti.bpmn.model.FlowElement;
import org.activiti.bpmn.model.FlowNode;
import org.activiti.bpmn.model.InclusiveGateway;
import org.activiti.bpmn.model.ParallelGateway;
import org.activiti.bpmn.model.Process;
import org.activiti.bpmn.model.SequenceFlow;
import org.activiti.bpmn.model.UserTask;

/**
 * Where a task may be sent back to (任意节点驳回), read from the BPMN model and the user tasks the run
 * has completed. A step inside a parallel section is only re-entered at the section's fork, so all
 * branches re-run and the join sees every one of them again; a target is offered only if it lies
 * upstream of the returning task and outside the parallel section that task runs in. Tasks inside
 * sub-processes and multi-instance targets are not understood here, hence never offered.
 * A step that declares its targets ({@code lockstep:returnTo}, as a declarative flow compiles them) is offered
 * only those of them, each at its entry; the definition check refuses a declared target these rules never offer.
 */
public final class ReturnTargets {

    /** The product's own BPMN namespace, of {@code lockstep:returnTo} and the marks the definition check reads. */
    public static final String LOCKSTEP_NS = "https://lockstep.dev/bpmn";
    /** The steps a user task may be returned to, space-separated ids; present and empty: none. */
    public static final String DECLARED_TARGETS = "returnTo";

    private final Process model;

    public ReturnTargets(Process model) {
        this.model = model;
    }

    /** The allowed targets for a task at {@code currentActivityId}, in the model's order. */
    public List<ReturnTarget> allowed(String currentActivityId, Set<String> completedUserTasks) {
        if (!(model.getFlowElement(currentActivityId) instanceof UserTask current)) {
            return List.of();
        }
        FlowNode currentEntry = entryOf(current);
        Set<String> upstream = upstreamOf(currentEntry);
        Set<String> declared = declaredEntries(current);
        Map<String, ReturnTarget> targets = new LinkedHashMap<>();
        for (FlowElement element : model.getFlowElements()) {
            if (element instanceof UserTask step && step.getLoopCharacteristics() == null
                    && completedUserTasks.contains(step.getId())) {
                FlowNode entry = entryOf(step);
                if (!entry.getId().equals(currentEntry.getId()) && upstream.contains(entry.getId())
                        && (declared == null || declared.contains(entry.getId()))) {
                    targets.putIfAbsent(entry.getId(), new ReturnTarget(entry.getId(), entry.getName()));
                }
            }
        }
        return new ArrayList<>(targets.values());
    }

    /** The entries of the targets {@code step} declares, or {@code null} when it declares none (every allowed one is offered). */
    private Set<String> declaredEntries(UserTask step) {
        List<String> declared = declaredTargets(step);
        if (declared == null) {
            return null;
        }
        Set<String> entries = new HashSet<>();
        declared.stream().map(model::getFlowElement).filter(FlowNode.class::isInstance)
                .forEach(target -> entries.add(entryOf((FlowNode) target).getId()));
        return entries;
    }

    /** The ids in {@code step}'s {@code lockstep:returnTo}, or {@code null} without the attribute. */
    public static List<String> declaredTargets(UserTask step) {
        List<ExtensionAttribute> attributes = step.getAttributes().get(DECLARED_TARGETS);
        return attributes == null ? null : attributes.stream().filter(attribute -> LOCKSTEP_NS.equals(attribute.getNamespace()))
                .findFirst().map(attribute -> List.of(attribute.getValue().strip().split("\\s+")).stream()
                        .filter(id -> !id.isEmpty()).toList()).orElse(null);
    }

    /** The step itself, or the outermost fork of the parallel section(s) it runs in. */
    public FlowNode entryOf(FlowNode step) {
        FlowNode entry = step;
        for (FlowNode fork = enclosingFork(entry); fork != null; fork = enclosingFork(entry)) {
            entry = fork;
        }
        return entry;
    }

    FlowNode node(String activityId) {
        return (FlowNode) model.getFlowElement(activityId);
    }

    /**
     * Walks backwards from the node counting the joins passed: the first fork reached with no
     * unmatched join on the way opens the parallel section the node is in.
     */
    private FlowNode enclosingFork(FlowNode node) {
        int maxDepth = model.getFlowElements().size();
        Deque<Position> pending = new ArrayDeque<>();
        Set<Position> seen = new HashSet<>();
        predecessors(node).forEach(previous -> pending.push(new Position(previous, 0)));
        while (!pending.isEmpty()) {
            Position position = pending.pop();
            if (!seen.add(position)) {
                continue;
            }
            int depth = position.depth();
            FlowNode current = position.node();
            if (isParallel(current) && current.getOutgoingFlows().size() > 1) {
                if (depth == 0) {
                    return current;
                }
                depth--;
            }
            if (isParallel(current) && current.getIncomingFlows().size() > 1) {
                depth++;
            }
            if (depth <= maxDepth) {
                for (FlowNode previous : predecessors(current)) {
                    pending.push(new Position(previous, depth));
                }
            }
        }
        return null;
    }

    private Set<String> upstreamOf(FlowNode node) {
        Set<String> upstream = new HashSet<>();
        Deque<FlowNode> pending = new ArrayDeque<>(predecessors(node));
        while (!pending.isEmpty()) {
            FlowNode current = pending.pop();
            if (upstream.add(current.getId())) {
                pending.addAll(predecessors(current));
            }
        }
        return upstream;
    }

    private List<FlowNode> predecessors(FlowNode node) {
        List<FlowNode> previous = new ArrayList<>();
        for (SequenceFlow flow : node.getIncomingFlows()) {
            if (flow.getSourceFlowElement() instanceof FlowNode source) {
                previous.add(source);
            }
        }
        return previous;
    }

    private static boolean isParallel(FlowNode node) {
        return node instanceof ParallelGateway || node instanceof InclusiveGateway;
    }

    private record Position(FlowNode node, int depth) {
    }
}
