package dev.lockstep.transactions.workflow.definition;

import dev.lockstep.transactions.workflow.ReturnTarget;
import dev.lockstep.transactions.workflow.ReturnTargets;
import java.time.Duration;
import java.time.Period;
import java.time.format.DateTimeParseException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;
import org.activiti.bpmn.model.Activity;
import org.activiti.bpmn.model.BoundaryEvent;
import org.activiti.bpmn.model.EndEvent;
import org.activiti.bpmn.model.ExclusiveGateway;
import org.activiti.bpmn.model.FlowElement;
import org.activiti.bpmn.model.FlowNode;
import org.activiti.bpmn.model.ParallelGateway;
import org.activiti.bpmn.model.Process;
import org.activiti.bpmn.model.SequenceFlow;
import org.activiti.bpmn.model.StartEvent;
import org.activiti.bpmn.model.TerminateEventDefinition;
import org.activiti.bpmn.model.TimerEventDefinition;
import org.activiti.bpmn.model.UserTask;

/**
 * The elements an uploaded process may contain and the shape it must have: the product can guarantee its
 * transactions, separation of duties and outcomes only for user tasks, exclusive and parallel gateways, timer
 * deadlines and start/end events, joined so that every step is reachable and every path ends in an explicit outcome.
 */
final class FlowRules {

    static final Set<String> OUTCOMES = Set.of("APPROVED", "REJECTED", "RETURNED");
    /** The outcomes a deadline may end a run with, as the built-in final deadlines do: never an approval. */
    static final Set<String> DEADLINE_OUTCOMES = Set.of("REJECTED", "RETURNED");
    /** The countersign task's id the product's countersign commands look for (CountersignStep in transactions.workflow). */
    static final String COUNTERSIGN_ID = "countersign";

    private final Process process;
    private final DefinitionRules rules;
    private final ElementMarks marks;
    private final List<DefinitionProblem> problems = new ArrayList<>();
    private final Map<String, FlowNode> nodes = new LinkedHashMap<>();

    private FlowRules(Process process, DefinitionRules rules, ElementMarks marks) {
        this.process = process;
        this.rules = rules;
        this.marks = marks;
    }

    static List<DefinitionProblem> check(Process process, DefinitionRules rules, ElementMarks marks) {
        FlowRules check = new FlowRules(process, rules, marks);
        check.elements();
        if (check.problems.isEmpty()) {
            check.graph();
        }
        if (check.problems.isEmpty()) {
            check.declaredReturns();
            check.deadlinePaths();
        }
        return List.copyOf(check.problems);
    }

    private void elements() {
        int starts = 0;
        int countersigns = 0;
        for (FlowElement element : process.getFlowElements()) {
            if (element instanceof FlowNode node) {
                nodes.put(node.getId(), node);
            }
            if (element instanceof SequenceFlow flow) {
                condition(flow);
            } else if (element instanceof StartEvent start && start.getEventDefinitions().isEmpty()) {
                starts++;
            } else if (element instanceof EndEvent end) {
                endEvent(end);
            } else if (element instanceof UserTask task && marks.isCountersign(task.getId())) {
                countersigns++;
                countersign(task);
            } else if (element instanceof UserTask task) {
                userTask(task);
            } else if (element instanceof BoundaryEvent boundary) {
                boundaryEvent(boundary);
            } else if (!(element instanceof ExclusiveGateway || element instanceof ParallelGateway)) {
                notSupported(element, element.getClass().getSimpleName());
            }
        }
        if (starts != 1) {
            problems.add(new DefinitionProblem(null, "ONE_START_REQUIRED",
                    "a definition has exactly one start event without an event definition; this one has " + starts));
        }
        if (countersigns > 1) {
            problems.add(new DefinitionProblem(null, "MORE_THAN_ONE_COUNTERSIGN",
                    "at most one countersign step per definition; this one has " + countersigns));
        }
    }

    private void condition(SequenceFlow flow) {
        if (hasCondition(flow)) {
            problems.addAll(ConditionExpressions.check(flow.getId(), flow.getConditionExpression(), rules.routableFields()));
        }
    }

    private void endEvent(EndEvent end) {
        if (!end.getEventDefinitions().stream().allMatch(TerminateEventDefinition.class::isInstance)) {
            notSupported(end, "end event with " + end.getEventDefinitions().get(0).getClass().getSimpleName());
        }
        if (marks.outcome(end.getId()) == null || !OUTCOMES.contains(marks.outcome(end.getId()))) {
            problems.add(new DefinitionProblem(end.getId(), "END_WITHOUT_OUTCOME",
                    "an end event declares lockstep:outcome (namespace " + ElementMarks.LOCKSTEP_NS + ") as one of " + OUTCOMES));
        }
    }

    private void userTask(UserTask task) {
        if (task.hasMultiInstanceLoopCharacteristics()) {
            notSupported(task, "multi-instance user task (only the product's countersign step, lockstep:countersign=\"true\", is multi-instance)");
        }
        String camundaGroups = marks.camundaCandidateGroups(task.getId());
        if (task.getCandidateGroups().isEmpty() && camundaGroups != null) {
            task.setCandidateGroups(Arrays.stream(camundaGroups.split(",")).map(String::strip).filter(g -> !g.isEmpty()).toList());
        }
        if (task.getCandidateGroups().isEmpty()) {
            problems.add(new DefinitionProblem(task.getId(), "NO_CANDIDATE_GROUPS",
                    "a step names at least one candidate group (activiti:candidateGroups or camunda:candidateGroups)"));
        }
        task.getCandidateGroups().stream().filter(group -> !rules.knownGroups().contains(group)).forEach(group ->
                problems.add(new DefinitionProblem(task.getId(), "UNKNOWN_GROUP", "group '" + group + "' does not exist")));
        if (marks.hasPolicyDeadlines(task.getId())) {
            problems.add(new DefinitionProblem(task.getId(), "POLICY_DEADLINES_NOT_SUPPORTED", "lockstep:deadlines marks the built-in"
                    + " flows' steps for the step-deadline policy; give an uploaded step its deadline as an interrupting timer boundary event"));
        }
    }

    private void countersign(UserTask task) {
        if (!COUNTERSIGN_ID.equals(task.getId())) {
            problems.add(new DefinitionProblem(task.getId(), "COUNTERSIGN_ID_REQUIRED",
                    "the countersign step must have the id '" + COUNTERSIGN_ID + "' for now"));
        }
        if (task.hasMultiInstanceLoopCharacteristics() || task.getAssignee() != null) {
            problems.add(new DefinitionProblem(task.getId(), "COUNTERSIGN_CONFIGURED",
                    "the countersign step carries no loop characteristics or assignee: the product adds them"));
        }
        try {
            marks.countersignPolicy(task.getId());
        } catch (IllegalArgumentException e) {
            problems.add(new DefinitionProblem(task.getId(), "COUNTERSIGN_POLICY_INVALID", e.getMessage()));
        }
    }

    private void boundaryEvent(BoundaryEvent boundary) {
        boolean timer = boundary.getEventDefinitions().size() == 1
                && boundary.getEventDefinitions().get(0) instanceof TimerEventDefinition;
        if (!timer || !(boundary.getAttachedToRef() instanceof UserTask)) {
            notSupported(boundary, "boundary event other than a timer on a user task");
            return;
        }
        if (!boundary.isCancelActivity()) {
            problems.add(new DefinitionProblem(boundary.getId(), "TIMER_NOT_INTERRUPTING", "a deadline timer interrupts its step"
                    + " (cancelActivity=\"true\"): reminders and escalations are the built-in step-deadline policy's, not an upload's"));
        }
        TimerEventDefinition definition = (TimerEventDefinition) boundary.getEventDefinitions().get(0);
        if (definition.getTimeDuration() == null || !isIsoDuration(definition.getTimeDuration().strip())) {
            problems.add(new DefinitionProblem(boundary.getId(), "TIMER_DURATION_INVALID",
                    "a deadline timer has a literal ISO-8601 timeDuration such as P2D or PT4H (no timeDate, timeCycle or expression)"));
        }
    }

    private static boolean isIsoDuration(String text) {
        for (Function<String, ?> parse : List.<Function<String, ?>>of(Duration::parse, Period::parse)) {
            try {
                parse.apply(text);
                return true;
            } catch (DateTimeParseException e) {
                // try the other form
            }
        }
        return false;
    }

    private void notSupported(FlowElement element, String type) {
        problems.add(new DefinitionProblem(element.getId(), "ELEMENT_NOT_SUPPORTED", type + " is not supported"));
    }

    private void graph() {
        nodes.values().stream().filter(ExclusiveGateway.class::isInstance).map(ExclusiveGateway.class::cast)
                .filter(gateway -> gateway.getOutgoingFlows().size() > 1)
                .flatMap(gateway -> gateway.getOutgoingFlows().stream()
                        .filter(flow -> !flow.getId().equals(gateway.getDefaultFlow()))
                        .filter(flow -> !hasCondition(flow)))
                .forEach(flow -> problems.add(new DefinitionProblem(flow.getId(), "GATEWAY_FLOW_WITHOUT_CONDITION",
                        "a flow out of a choice between several ways has a condition unless it is the gateway's default")));

        FlowNode start = nodes.values().stream().filter(StartEvent.class::isInstance).findFirst().orElseThrow();
        Set<String> reachable = walk(List.of(start), this::next);
        nodes.keySet().stream().filter(id -> !reachable.contains(id)).forEach(id -> problems.add(
                new DefinitionProblem(id, "UNREACHABLE_ELEMENT", "no path from the start event leads here")));
        List<FlowNode> ends = nodes.values().stream().filter(EndEvent.class::isInstance).toList();
        Set<String> finishing = walk(ends, this::previous);
        nodes.keySet().stream().filter(id -> !finishing.contains(id)).forEach(id -> problems.add(
                new DefinitionProblem(id, "NO_PATH_TO_END", "no path leads from here to an end event")));
        boolean approvable = ends.stream().anyMatch(end -> reachable.contains(end.getId()) && "APPROVED".equals(marks.outcome(end.getId())));
        if (!approvable) {
            problems.add(new DefinitionProblem(null, "NO_APPROVED_END", "no reachable end event has lockstep:outcome=\"APPROVED\""));
        }
        nodes.values().stream().filter(ParallelGateway.class::isInstance).filter(fork -> fork.getOutgoingFlows().size() > 1)
                .filter(this::endsBeforeJoin).forEach(fork -> problems.add(new DefinitionProblem(fork.getId(),
                        "PARALLEL_FORK_NOT_JOINED", "a path out of this parallel fork reaches an end event before a parallel join")));
    }

    /**
     * Normal flow only: a deadline timer's path may leave a branch on purpose. A terminate end event may be reached
     * too: it ends the whole run, the other branches' tasks with it (the built-in process rejects that way).
     */
    private boolean endsBeforeJoin(FlowNode fork) {
        Set<String> seen = walk(targets(fork), node -> node instanceof ParallelGateway join && join.getIncomingFlows().size() > 1
                ? List.of() : targets(node));
        return seen.stream().map(nodes::get).anyMatch(node -> node instanceof EndEvent end && !isTerminate(end));
    }

    private static boolean isTerminate(EndEvent end) {
        return !end.getEventDefinitions().isEmpty();
    }

    /**
     * A step's declared return targets ({@code lockstep:returnTo}) must be steps the return command would offer it
     * (ReturnTargets, with every step completed): earlier on its path and outside the parallel section it runs in.
     */
    private void declaredReturns() {
        ReturnTargets returns = new ReturnTargets(process);
        Set<String> steps = new HashSet<>(DeployableBpmn.userTaskIds(process));
        for (FlowNode node : nodes.values()) {
            List<String> declared = node instanceof UserTask task ? ReturnTargets.declaredTargets(task) : null;
            if (declared == null) {
                continue;
            }
            Set<String> offered = new HashSet<>(returns.allowed(node.getId(), steps).stream().map(ReturnTarget::id).toList());
            for (String target : declared) {
                if (!(nodes.get(target) instanceof UserTask step) || marks.isCountersign(target)) {
                    problems.add(new DefinitionProblem(node.getId(), "RETURN_TARGET_UNKNOWN",
                            "'" + target + "' is not a step (the countersign step is not a return target)"));
                } else if (!offered.contains(returns.entryOf(step).getId())) {
                    problems.add(new DefinitionProblem(node.getId(), "RETURN_TARGET_NOT_ALLOWED", "'" + target
                            + "' is not an earlier step on this step's path outside the parallel section it runs in"));
                }
            }
        }
    }

    /**
     * A deadline ends the application as the built-in final deadline does (DeployableBpmn adds that action to its flow):
     * its one flow leads straight to an end event recording REJECTED or RETURNED. A step inside a parallel section
     * needs a terminate end there, or the other branches' tasks would run on after the application has ended.
     */
    private void deadlinePaths() {
        ReturnTargets sections = new ReturnTargets(process);
        for (FlowNode node : nodes.values()) {
            if (!(node instanceof BoundaryEvent timer)) {
                continue;
            }
            FlowNode target = timer.getOutgoingFlows().size() == 1 && !hasCondition(timer.getOutgoingFlows().get(0))
                    ? nodes.get(timer.getOutgoingFlows().get(0).getTargetRef()) : null;
            if (!(target instanceof EndEvent end) || !DEADLINE_OUTCOMES.contains(marks.outcome(end.getId()))) {
                problems.add(new DefinitionProblem(timer.getId(), "TIMER_PATH_INVALID", "a deadline timer has one flow, without"
                        + " a condition, straight to an end event whose lockstep:outcome is REJECTED or RETURNED"));
            } else if (!isTerminate(end) && sections.entryOf(timer.getAttachedToRef()) != timer.getAttachedToRef()) {
                problems.add(new DefinitionProblem(timer.getId(), "TIMER_PATH_INVALID", "the step runs in a parallel section:"
                        + " its deadline's end event is a terminate end, so the other branches end with the application"));
            }
        }
    }

    private static boolean hasCondition(SequenceFlow flow) {
        return flow.getConditionExpression() != null && !flow.getConditionExpression().isBlank();
    }

    private List<FlowNode> targets(FlowNode node) {
        return node.getOutgoingFlows().stream().map(flow -> nodes.get(flow.getTargetRef())).filter(n -> n != null).toList();
    }

    private List<FlowNode> next(FlowNode node) {
        List<FlowNode> boundaries = node instanceof Activity activity ? List.copyOf(activity.getBoundaryEvents()) : List.of();
        return Stream.concat(targets(node).stream(), boundaries.stream()).toList();
    }

    private List<FlowNode> previous(FlowNode node) {
        List<FlowNode> sources = node.getIncomingFlows().stream().map(flow -> nodes.get(flow.getSourceRef())).filter(n -> n != null).toList();
        return node instanceof BoundaryEvent boundary && boundary.getAttachedToRef() != null
                ? Stream.concat(sources.stream(), Stream.of(boundary.getAttachedToRef())).toList() : sources;
    }

    private static Set<String> walk(List<? extends FlowNode> from, Function<FlowNode, List<FlowNode>> step) {
        Set<String> seen = new HashSet<>();
        Deque<FlowNode> todo = new ArrayDeque<>(from);
        while (!todo.isEmpty()) {
            FlowNode node = todo.pop();
            if (seen.add(node.getId())) {
                todo.addAll(step.apply(node));
            }
        }
        return seen;
    }
}
