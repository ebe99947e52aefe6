package dev.lockstep.transactions.workflow.definition;

import dev.lockstep.transactions.workflow.ReturnTargets;
import dev.lockstep.transactions.workflow.definition.DeclarativeFlows.Compilation;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import javax.xml.stream.XMLOutputFactory;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamWriter;
import tools.jackson.databind.JsonNode;

/**
 * Compiles a declarative flow to BPMN, as docs/approvals.md ("Declarative flows") describes: each step a user task
 * followed by a choice on {@code decision} (REJECT: the terminate end REJECTED, so sibling branches end too), a
 * {@code when} a choice around the step or block that skips it, a parallel block a fork and a join, a deadline an
 * interrupting timer that ends the run REJECTED, and after the last step the end APPROVED. A countersign step is the
 * product's countersign task (lockstep:countersign with its policy), and its choice reads the step's result instead of
 * the last signer's decision. The ids it generates
 * contain a '-', which step ids may not, so they never collide.
 */
final class FlowCompiler {

    private static final String BPMN_NS = "http://www.omg.org/spec/BPMN/20100524/MODEL";
    private static final String ACTIVITI_NS = "http://activiti.org/bpmn";
    private static final String XSI_NS = "http://www.w3.org/2001/XMLSchema-instance";
    /** An NCName without '-' (kept for generated ids) and short enough to read in a todo list. */
    private static final Pattern STEP_ID = Pattern.compile("[A-Za-z][A-Za-z0-9_]{0,63}");
    private static final String APPROVED = "flow-approved";
    private static final String REJECTED = "flow-rejected";

    private static final Set<String> FLOW_MEMBERS = Set.of("name", "steps");
    private static final Set<String> STEP_MEMBERS = Set.of("id", "name", "candidateGroups", "countersign", "deadline", "returnTo", "when");
    private static final Set<String> COUNTERSIGN_MEMBERS = Set.of("policy", "ratio");
    private static final Set<String> BLOCK_MEMBERS = Set.of("id", "name", "parallel", "when");

    /** Where the next element is entered from: a node, and the flow's id and condition when they are prescribed. */
    private record Link(String source, String flowId, String condition) {
        Link(String source) {
            this(source, null, null);
        }
    }

    private final List<DefinitionProblem> problems = new ArrayList<>();
    private final Set<String> stepIds = new HashSet<>();
    private final XMLStreamWriter xml;
    private int flows;

    private FlowCompiler(XMLStreamWriter xml) {
        this.xml = xml;
    }

    static Compilation compile(JsonNode document) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            XMLStreamWriter writer = XMLOutputFactory.newFactory().createXMLStreamWriter(out, "UTF-8");
            FlowCompiler compiler = new FlowCompiler(writer);
            compiler.flow(document);
            writer.close();
            return compiler.problems.isEmpty() ? new Compilation.Compiled(out.toByteArray())
                    : new Compilation.Refused(List.copyOf(compiler.problems));
        } catch (XMLStreamException e) {
            throw new IllegalStateException("writing BPMN to memory failed", e);
        }
    }

    private void flow(JsonNode document) throws XMLStreamException {
        if (!document.isObject()) {
            problems.add(new DefinitionProblem("", "MEMBER_INVALID", "a declarative flow is an object with \"name\" and \"steps\""));
            return;
        }
        members(document, "", FLOW_MEMBERS);
        xml.writeStartDocument("UTF-8", "1.0");
        xml.writeStartElement("definitions");
        xml.writeDefaultNamespace(BPMN_NS);
        xml.writeNamespace("activiti", ACTIVITI_NS);
        xml.writeNamespace("lockstep", ReturnTargets.LOCKSTEP_NS);
        xml.writeNamespace("xsi", XSI_NS);
        xml.writeAttribute("targetNamespace", "https://lockstep.dev/declarative");
        xml.writeStartElement("process");
        xml.writeAttribute("id", "declarative");
        String name = text(document, "name", "");
        if (name != null) {
            xml.writeAttribute("name", name);
        }
        xml.writeAttribute("isExecutable", "true");
        emptyElement("startEvent", "id", "flow-start");
        Link last = sequence(document.get("steps"), "/steps", new Link("flow-start"));
        sequenceFlow(last, APPROVED);
        emptyElement("endEvent", "id", APPROVED, "name", "Approved");
        xml.writeAttribute("lockstep", ReturnTargets.LOCKSTEP_NS, "outcome", "APPROVED");
        xml.writeStartElement("endEvent");
        xml.writeAttribute("id", REJECTED);
        xml.writeAttribute("name", "Rejected");
        xml.writeAttribute("lockstep", ReturnTargets.LOCKSTEP_NS, "outcome", "REJECTED");
        xml.writeEmptyElement("terminateEventDefinition");
        xml.writeEndElement();
        xml.writeEndElement();
        xml.writeEndElement();
        xml.writeEndDocument();
    }

    /** The steps of {@code steps} one after the other, entered from {@code from}; answers where the last one leaves. */
    private Link sequence(JsonNode steps, String pointer, Link from) throws XMLStreamException {
        if (steps == null || !steps.isArray() || steps.isEmpty()) {
            problems.add(new DefinitionProblem(pointer, "STEPS_EMPTY", "a flow, and each parallel branch, is a non-empty array of steps"));
            return from;
        }
        Link last = from;
        for (int i = 0; i < steps.size(); i++) {
            last = step(steps.get(i), pointer + "/" + i, last);
        }
        return last;
    }

    private Link step(JsonNode step, String pointer, Link from) throws XMLStreamException {
        if (!step.isObject()) {
            problems.add(new DefinitionProblem(pointer, "MEMBER_INVALID", "a step is an object"));
            return from;
        }
        String id = stepId(step, pointer);
        if (id == null) {
            return from;
        }
        String when = text(step, "when", pointer);
        if (when == null) {
            return step.has("parallel") ? block(step, id, pointer, from) : task(step, id, pointer, from);
        }
        // a choice whose condition leads into the step and whose default skips it, both meeting again after it
        String choice = id + "-when";
        sequenceFlow(from, choice);
        emptyElement("exclusiveGateway", "id", choice, "default", choice + "-skip");
        Link into = new Link(choice, choice + "-true", "${" + when + "}");
        Link out = step.has("parallel") ? block(step, id, pointer, into) : task(step, id, pointer, into);
        String merge = id + "-merge";
        sequenceFlow(out, merge);
        sequenceFlow(new Link(choice, choice + "-skip", null), merge);
        emptyElement("exclusiveGateway", "id", merge);
        return new Link(merge);
    }

    private Link task(JsonNode step, String id, String pointer, Link from) throws XMLStreamException {
        members(step, pointer, STEP_MEMBERS);
        List<String> groups = strings(step, "candidateGroups", pointer);
        List<String> returnTo = strings(step, "returnTo", pointer);
        String deadline = text(step, "deadline", pointer);
        JsonNode countersign = step.get("countersign");
        sequenceFlow(from, id);
        emptyElement("userTask", "id", id, "name", nameOf(step, id, pointer));
        if (countersign != null) {
            countersign(countersign, pointer + "/countersign", !groups.isEmpty());
        } else if (!groups.isEmpty()) {
            xml.writeAttribute("activiti", ACTIVITI_NS, "candidateGroups", String.join(",", groups));
        }
        // without returnTo a declarative step may be returned to no earlier step
        xml.writeAttribute("lockstep", ReturnTargets.LOCKSTEP_NS, ReturnTargets.DECLARED_TARGETS, String.join(" ", returnTo));
        if (deadline != null) {
            String timer = id + "-deadline";
            xml.writeStartElement("boundaryEvent");
            xml.writeAttribute("id", timer);
            xml.writeAttribute("attachedToRef", id);
            xml.writeAttribute("cancelActivity", "true");
            xml.writeStartElement("timerEventDefinition");
            xml.writeStartElement("timeDuration");
            xml.writeAttribute("xsi", XSI_NS, "type", "tFormalExpression");
            xml.writeCharacters(deadline);
            xml.writeEndElement();
            xml.writeEndElement();
            xml.writeEndElement();
            sequenceFlow(new Link(timer), REJECTED);
        }
        String decision = id + "-decision";
        sequenceFlow(new Link(id), decision);
        emptyElement("exclusiveGateway", "id", decision, "default", decision + "-approve");
        String rejected = countersign != null ? ConditionExpressions.COUNTERSIGN_RESULT + " == 'REJECTED'"
                : ConditionExpressions.DECISION + " == 'REJECT'";
        sequenceFlow(new Link(decision, decision + "-reject", "${" + rejected + "}"), REJECTED);
        return new Link(decision, decision + "-approve", null);
    }

    /** The countersign marks on the open user task; its signers are named by each application, not here. */
    private void countersign(JsonNode countersign, String pointer, boolean hasGroups) throws XMLStreamException {
        if (hasGroups) {
            problems.add(new DefinitionProblem(pointer, "MEMBER_INVALID",
                    "a countersign step has signers named by each application, not candidate groups"));
        }
        if (!countersign.isObject()) {
            problems.add(new DefinitionProblem(pointer, "MEMBER_INVALID", "'countersign' is an object with \"policy\" and, for RATIO, \"ratio\""));
            return;
        }
        members(countersign, pointer, COUNTERSIGN_MEMBERS);
        xml.writeAttribute("lockstep", ReturnTargets.LOCKSTEP_NS, "countersign", "true");
        String policy = text(countersign, "policy", pointer);
        if (policy != null) {
            xml.writeAttribute("lockstep", ReturnTargets.LOCKSTEP_NS, "policy", policy);
        }
        JsonNode ratio = countersign.get("ratio");
        if (ratio != null && !ratio.isNull()) {
            // a number or its text: the check on the compiled BPMN says whether it is a valid ratio
            xml.writeAttribute("lockstep", ReturnTargets.LOCKSTEP_NS, "ratio", ratio.isNumber() ? ratio.decimalValue().toPlainString() : ratio.asString());
        }
    }

    /** A parallel block: a fork named by the block (the entry a return to any of its steps re-runs), its branches, a join. */
    private Link block(JsonNode block, String id, String pointer, Link from) throws XMLStreamException {
        members(block, pointer, BLOCK_MEMBERS);
        JsonNode branches = block.get("parallel");
        if (!branches.isArray() || branches.size() < 2) {
            problems.add(new DefinitionProblem(pointer + "/parallel", "PARALLEL_TOO_FEW_BRANCHES",
                    "\"parallel\" is an array of at least two branches, each an array of steps"));
            return from;
        }
        sequenceFlow(from, id);
        emptyElement("parallelGateway", "id", id, "name", nameOf(block, id, pointer));
        String join = id + "-join";
        for (int i = 0; i < branches.size(); i++) {
            Link end = sequence(branches.get(i), pointer + "/parallel/" + i, new Link(id));
            sequenceFlow(end, join);
        }
        emptyElement("parallelGateway", "id", join);
        return new Link(join);
    }

    private String stepId(JsonNode step, String pointer) {
        String id = text(step, "id", pointer);
        if (id == null || !STEP_ID.matcher(id).matches()) {
            problems.add(new DefinitionProblem(pointer + "/id", "STEP_ID_INVALID",
                    "every step and parallel block has an \"id\" matching " + STEP_ID.pattern()));
            return null;
        }
        if (!stepIds.add(id)) {
            problems.add(new DefinitionProblem(pointer + "/id", "STEP_ID_DUPLICATE", "the id '" + id + "' is used twice"));
            return null;
        }
        return id;
    }

    private String nameOf(JsonNode step, String id, String pointer) {
        String name = text(step, "name", pointer);
        return name != null ? name : id;
    }

    private void members(JsonNode object, String pointer, Set<String> allowed) {
        for (Map.Entry<String, JsonNode> member : object.properties()) {
            if (!allowed.contains(member.getKey())) {
                problems.add(new DefinitionProblem(pointer + "/" + member.getKey(), "MEMBER_UNKNOWN",
                        "'" + member.getKey() + "' is not a member here; allowed: " + allowed.stream().sorted().toList()));
            }
        }
    }

    /** The member's text, {@code null} when it is absent; a member of another type is a problem. */
    private String text(JsonNode object, String member, String pointer) {
        JsonNode value = object.get(member);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isString()) {
            problems.add(new DefinitionProblem(pointer + "/" + member, "MEMBER_INVALID", "'" + member + "' is a string"));
            return null;
        }
        return value.stringValue();
    }

    private List<String> strings(JsonNode object, String member, String pointer) {
        JsonNode value = object.get(member);
        if (value == null || value.isNull()) {
            return List.of();
        }
        if (!value.isArray() || !value.values().stream().allMatch(JsonNode::isString)) {
            problems.add(new DefinitionProblem(pointer + "/" + member, "MEMBER_INVALID", "'" + member + "' is an array of strings"));
            return List.of();
        }
        return value.values().stream().map(JsonNode::stringValue).toList();
    }

    private void sequenceFlow(Link from, String target) throws XMLStreamException {
        String id = from.flowId() != null ? from.flowId() : "flow-" + ++flows;
        if (from.condition() == null) {
            emptyElement("sequenceFlow", "id", id, "sourceRef", from.source(), "targetRef", target);
            return;
        }
        xml.writeStartElement("sequenceFlow");
        xml.writeAttribute("id", id);
        xml.writeAttribute("sourceRef", from.source());
        xml.writeAttribute("targetRef", target);
        xml.writeStartElement("conditionExpression");
        xml.writeAttribute("xsi", XSI_NS, "type", "tFormalExpression");
        xml.writeCharacters(from.condition());
        xml.writeEndElement();
        xml.writeEndElement();
    }

    /** An element without content; attributes written after it (the open start tag) still belong to it. */
    private void emptyElement(String name, String... attributes) throws XMLStreamException {
        xml.writeEmptyElement(name);
        for (int i = 0; i < attributes.length; i += 2) {
            xml.writeAttribute(attributes[i], attributes[i + 1]);
        }
    }
}
