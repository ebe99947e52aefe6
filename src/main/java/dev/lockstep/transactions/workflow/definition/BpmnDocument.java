package dev.lockstep.transactions.workflow.definition;

import java.io.ByteArrayInputStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import org.activiti.bpmn.converter.BpmnXMLConverter;
import org.activiti.bpmn.model.BpmnModel;

/**
 * Reads an uploaded document safely: the size limit before any parsing, a StAX reader that neither reads a DTD
 * nor resolves or expands an entity, and a first pass over the raw XML that refuses anything the engine would run
 * as code, whatever namespace (activiti, camunda, ...) it is written in. Only then does Activiti's converter
 * build the model, from a second reader made the same way.
 */
final class BpmnDocument {

    /** Attributes (any extension namespace) and elements naming Java classes, beans, scripts or async execution. */
    private static final Set<String> CODE_ATTRIBUTES = Set.of("class", "delegateExpression", "expression",
            "async", "asyncBefore", "asyncAfter", "resultVariable", "resultVariableName", "skipExpression");
    private static final Set<String> CODE_ELEMENTS = Set.of("executionListener", "taskListener", "eventListener",
            "script", "field", "in", "out", "inputOutput", "connector");
    /** The only element whose text may hold an expression; the expression rules check it. */
    private static final String CONDITION = "conditionExpression";

    record Read(BpmnModel model, ElementMarks marks, List<DefinitionProblem> problems) {
    }

    private BpmnDocument() {
    }

    static Read read(byte[] xml, int maxBytes) {
        if (xml.length > maxBytes) {
            return refused(new DefinitionProblem(null, "DEFINITION_TOO_LARGE",
                    "the document has " + xml.length + " bytes; at most " + maxBytes + " are accepted"));
        }
        List<DefinitionProblem> problems = new ArrayList<>();
        ElementMarks marks = new ElementMarks();
        try {
            scan(xml, marks, problems);
        } catch (DtdFound e) {
            return refused(new DefinitionProblem(null, "DTD_NOT_ALLOWED",
                    "a DOCTYPE is not accepted: DTDs and entities are never read or expanded"));
        } catch (XMLStreamException | RuntimeException e) {
            return refused(new DefinitionProblem(null, "XML_MALFORMED", "the document is not well-formed XML"
                    + location(e)));
        }
        if (!problems.isEmpty()) {
            return new Read(null, null, List.copyOf(problems));
        }
        try {
            XMLStreamReader reader = hardenedFactory().createXMLStreamReader(new ByteArrayInputStream(xml));
            return new Read(new BpmnXMLConverter().convertToBpmnModel(reader), marks, List.of());
        } catch (XMLStreamException | RuntimeException e) {
            // the converter throws XMLException for structure it cannot map; its message may quote the document only
            return refused(new DefinitionProblem(null, "XML_MALFORMED", "the document is not BPMN 2.0 the engine can read"));
        }
    }

    private static Read refused(DefinitionProblem problem) {
        return new Read(null, null, List.of(problem));
    }

    static XMLInputFactory hardenedFactory() {
        XMLInputFactory factory = XMLInputFactory.newFactory();
        factory.setProperty(XMLInputFactory.SUPPORT_DTD, false);
        factory.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
        factory.setProperty(XMLInputFactory.IS_REPLACING_ENTITY_REFERENCES, false);
        factory.setXMLResolver((publicId, systemId, base, namespace) -> {
            throw new XMLStreamException("external resources are never resolved");
        });
        return factory;
    }

    /**
     * The first pass: a DOCTYPE stops it; code-bearing attributes and elements, and expressions outside conditions,
     * are collected, and so are the {@link ElementMarks}.
     */
    private static void scan(byte[] xml, ElementMarks marks, List<DefinitionProblem> problems) throws XMLStreamException {
        XMLStreamReader reader = hardenedFactory().createXMLStreamReader(new ByteArrayInputStream(xml));
        Deque<String> ids = new ArrayDeque<>();
        Deque<String> names = new ArrayDeque<>();
        try {
            while (reader.hasNext()) {
                switch (reader.next()) {
                    case XMLStreamConstants.DTD -> throw new DtdFound();
                    case XMLStreamConstants.ENTITY_REFERENCE -> throw new DtdFound();
                    case XMLStreamConstants.START_ELEMENT -> {
                        String id = reader.getAttributeValue(null, "id");
                        ids.push(id != null ? id : ids.isEmpty() ? "" : ids.peek());
                        names.push(reader.getLocalName());
                        checkElement(reader, elementId(ids), marks, problems);
                    }
                    case XMLStreamConstants.END_ELEMENT -> {
                        ids.pop();
                        names.pop();
                    }
                    case XMLStreamConstants.CHARACTERS, XMLStreamConstants.CDATA -> {
                        if (!CONDITION.equals(names.peek()) && isExpression(reader.getText())) {
                            problems.add(new DefinitionProblem(elementId(ids), "CODE_NOT_ALLOWED", "the text of <"
                                    + names.peek() + "> is an expression; the engine would evaluate it, and only"
                                    + " sequence flow conditions may hold one"));
                        }
                    }
                    default -> {
                    }
                }
            }
        } finally {
            reader.close();
        }
    }

    private static void checkElement(XMLStreamReader reader, String elementId, ElementMarks marks, List<DefinitionProblem> problems) {
        String namespace = reader.getNamespaceURI();
        if (isExtension(namespace) && CODE_ELEMENTS.contains(reader.getLocalName())) {
            problems.add(new DefinitionProblem(elementId, "CODE_NOT_ALLOWED", "<" + reader.getPrefix() + ":"
                    + reader.getLocalName() + "> runs code in the service; an uploaded definition may not"));
        }
        for (int i = 0; i < reader.getAttributeCount(); i++) {
            String attributeNamespace = reader.getAttributeNamespace(i);
            String name = reader.getAttributeLocalName(i);
            marks.record(elementId, attributeNamespace, name, reader.getAttributeValue(i));
            if (isExtension(attributeNamespace) && CODE_ATTRIBUTES.contains(name)) {
                problems.add(new DefinitionProblem(elementId, "CODE_NOT_ALLOWED", "attribute "
                        + reader.getAttributePrefix(i) + ":" + name + " runs code in the service; an uploaded definition may not"));
            } else if (isExpression(reader.getAttributeValue(i))) {
                problems.add(new DefinitionProblem(elementId, "CODE_NOT_ALLOWED", "attribute " + name
                        + " is an expression; the engine would evaluate it (groups, assignees, names and form keys must be literal)"));
            }
        }
    }

    /** Anything outside BPMN itself, its diagram interchange and the product's own namespace is an engine extension. */
    private static boolean isExtension(String namespace) {
        return namespace != null && !namespace.isEmpty() && !namespace.startsWith("http://www.omg.org/spec/")
                && !namespace.equals(ElementMarks.LOCKSTEP_NS) && !namespace.equals("http://www.w3.org/2001/XMLSchema-instance");
    }

    private static boolean isExpression(String text) {
        return text != null && (text.contains("${") || text.contains("#{"));
    }

    private static String elementId(Deque<String> ids) {
        return ids.isEmpty() || ids.peek().isEmpty() ? null : ids.peek();
    }

    private static String location(Exception e) {
        return e instanceof XMLStreamException stream && stream.getLocation() != null
                ? " (line " + stream.getLocation().getLineNumber() + ", column " + stream.getLocation().getColumnNumber() + ")"
                : "";
    }

    private static final class DtdFound extends RuntimeException {
        DtdFound() {
            super(null, null, false, false);
        }
    }
}
