package dev.lockstep.transactions.workflow.definition;

import dev.lockstep.platform.AreaApi;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import javax.xml.stream.XMLStreamException;
import org.activiti.bpmn.converter.BpmnXMLConverter;
import org.activiti.bpmn.model.BoundaryEvent;
import org.activiti.bpmn.model.EndEvent;
import org.activiti.bpmn.model.Event;
import org.activiti.bpmn.model.FlowElement;
import org.activiti.bpmn.model.FlowNode;
import org.activiti.bpmn.model.Gateway;
import org.activiti.bpmn.model.Process;
import org.activiti.bpmn.model.SequenceFlow;
import org.activiti.bpmn.model.StartEvent;
import org.activiti.bpmn.model.TimerEventDefinition;
import org.activiti.bpmn.model.UserTask;

/**
 * A picture of a definition version for the person who approves it (issue 30, "Reading"): an SVG drawn on the server
 * from the BPMN the engine runs. Steps stand in columns by their distance from the start (the longest path, flows
 * back to an earlier step not counted), the branches of a gateway one under the other; each user task shows its name,
 * id and candidate groups, a timer on it its duration, each flow its condition. A diagram the document carries (BPMN
 * DI) is not used: the layout is the same for uploaded and declarative definitions, and never shows more than the
 * process holds. Every text is escaped; the SVG has no script, link or external reference.
 */
@AreaApi
public final class FlowDiagram {

    private static final int COLUMN = 190;
    private static final int ROW = 110;
    private static final int MARGIN = 30;
    private static final int TASK_WIDTH = 150;
    private static final int TASK_HEIGHT = 64;
    private static final int EVENT = 36;
    private static final int GATEWAY = 46;
    /** The distance between the lanes of long flows under the diagram. */
    private static final int LANE = 14;

    private FlowDiagram() {
    }

    /** The SVG of the one process in {@code deployableXml}. */
    public static String svg(String deployableXml) {
        Process process = process(deployableXml);
        List<FlowNode> nodes = process.getFlowElements().stream()
                .filter(e -> e instanceof FlowNode && !(e instanceof BoundaryEvent)).map(FlowNode.class::cast).toList();
        Map<String, List<BoundaryEvent>> timers = timersByTask(process);
        Map<String, Integer> columns = columns(process, nodes, timers);
        Map<String, int[]> centres = centres(nodes, columns);
        // a timer's flow leaves from under its task
        timers.values().stream().flatMap(List::stream).forEach(timer -> {
            columns.put(timer.getId(), columns.get(timer.getAttachedToRefId()));
            centres.put(timer.getId(), centres.get(timer.getAttachedToRefId()));
        });
        List<SequenceFlow> flows = process.getFlowElements().stream().filter(SequenceFlow.class::isInstance).map(SequenceFlow.class::cast)
                .filter(flow -> centres.containsKey(flow.getSourceRef()) && centres.containsKey(flow.getTargetRef())).toList();
        // a flow forward past other columns runs in a lane under the whole diagram, one lane per target
        int underAll = lowestEdge(nodes, centres) + 12;
        Map<String, Integer> lanes = new LinkedHashMap<>();
        flows.stream().filter(flow -> columns.get(flow.getTargetRef()) - columns.get(flow.getSourceRef()) > 1)
                .forEach(flow -> lanes.putIfAbsent(flow.getTargetRef(), underAll + LANE * lanes.size()));
        int width = columns.values().stream().mapToInt(Integer::intValue).max().orElse(0) * COLUMN + TASK_WIDTH + 2 * MARGIN;
        int height = Math.max(centres.values().stream().mapToInt(c -> c[1]).max().orElse(0) + TASK_HEIGHT / 2 + 40,
                lanes.values().stream().mapToInt(Integer::intValue).max().orElse(0) + 16) + MARGIN;

        StringBuilder svg = new StringBuilder();
        svg.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(width).append("\" height=\"").append(height)
                .append("\" viewBox=\"0 0 ").append(width).append(' ').append(height).append("\" font-family=\"sans-serif\" font-size=\"12\">\n")
                .append("<title>").append(text(process.getName() == null ? process.getId() : process.getName())).append("</title>\n")
                .append("<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"8\" markerHeight=\"8\"")
                .append(" orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"#444\"/></marker></defs>\n");
        for (SequenceFlow flow : flows) {
            flow(svg, flow, centres, columns, lanes.get(flow.getTargetRef()),
                    process.getFlowElement(flow.getSourceRef()) instanceof BoundaryEvent);
        }
        for (FlowNode node : nodes) {
            node(svg, node, centres.get(node.getId()), timers.getOrDefault(node.getId(), List.of()));
        }
        return svg.append("</svg>\n").toString();
    }

    private static Process process(String xml) {
        try {
            var reader = BpmnDocument.hardenedFactory().createXMLStreamReader(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
            return new BpmnXMLConverter().convertToBpmnModel(reader).getProcesses().get(0);
        } catch (XMLStreamException e) {
            throw new IllegalStateException("a stored definition is not readable BPMN", e);
        }
    }

    /**
     * Longest distance from a start event, over flows that do not lead back to a step on the current path; a timer's
     * flows count from its task.
     */
    private static Map<String, Integer> columns(Process process, List<FlowNode> nodes, Map<String, List<BoundaryEvent>> timers) {
        Map<String, Integer> columns = new HashMap<>();
        for (FlowNode node : nodes) {
            if (node instanceof StartEvent) {
                deepen(process, node, 0, columns, new HashSet<>(), timers);
            }
        }
        nodes.forEach(node -> columns.putIfAbsent(node.getId(), 0));
        return columns;
    }

    private static void deepen(Process process, FlowNode node, int column, Map<String, Integer> columns, Set<String> onPath,
            Map<String, List<BoundaryEvent>> timers) {
        if (columns.getOrDefault(node.getId(), -1) >= column) {
            return;
        }
        columns.put(node.getId(), column);
        onPath.add(node.getId());
        List<SequenceFlow> out = new ArrayList<>(node.getOutgoingFlows());
        timers.getOrDefault(node.getId(), List.of()).forEach(timer -> out.addAll(timer.getOutgoingFlows()));
        for (SequenceFlow flow : out) {
            if (!onPath.contains(flow.getTargetRef()) && process.getFlowElement(flow.getTargetRef()) instanceof FlowNode next
                    && !(next instanceof BoundaryEvent)) {
                deepen(process, next, column + 1, columns, onPath, timers);
            }
        }
        onPath.remove(node.getId());
    }

    /**
     * Each node's centre and half size {x, y, half width, half height}: its column, and the next free row of that column
     * in the order the document lists them.
     */
    private static Map<String, int[]> centres(List<FlowNode> nodes, Map<String, Integer> columns) {
        Map<Integer, Integer> rowsUsed = new HashMap<>();
        Map<String, int[]> centres = new LinkedHashMap<>();
        for (FlowNode node : nodes) {
            int column = columns.get(node.getId());
            int row = rowsUsed.merge(column, 1, Integer::sum) - 1;
            int half = node instanceof Event ? EVENT / 2 : node instanceof Gateway ? GATEWAY / 2 : -1;
            centres.put(node.getId(), new int[] {MARGIN + column * COLUMN + TASK_WIDTH / 2, MARGIN + 20 + row * ROW + TASK_HEIGHT / 2,
                    half < 0 ? TASK_WIDTH / 2 : half, half < 0 ? TASK_HEIGHT / 2 : half});
        }
        return centres;
    }

    /** The lowest edge of the shapes, their captions and timer labels included. */
    private static int lowestEdge(List<FlowNode> nodes, Map<String, int[]> centres) {
        return nodes.stream().map(node -> centres.get(node.getId())).mapToInt(c -> c[1] + c[3] + 20).max().orElse(0);
    }

    private static Map<String, List<BoundaryEvent>> timersByTask(Process process) {
        Map<String, List<BoundaryEvent>> timers = new HashMap<>();
        for (FlowElement element : process.getFlowElements()) {
            if (element instanceof BoundaryEvent boundary && boundary.getAttachedToRefId() != null
                    && boundary.getEventDefinitions().stream().anyMatch(TimerEventDefinition.class::isInstance)) {
                timers.computeIfAbsent(boundary.getAttachedToRefId(), k -> new ArrayList<>()).add(boundary);
            }
        }
        return timers;
    }

    /**
     * A flow forward runs right from its source, a timer's from under its task; one back to an earlier column bends
     * below both. A flow forward past other columns ({@code lane} not null) turns down into the gap after its source's
     * column, runs along its target's lane under the whole diagram and up the gap before the target's column, so it
     * never crosses a shape; flows to the same target share its lane, as a bus.
     */
    private static void flow(StringBuilder svg, SequenceFlow flow, Map<String, int[]> centres, Map<String, Integer> columns,
            Integer lane, boolean fromTimer) {
        int[] from = centres.get(flow.getSourceRef());
        int[] to = centres.get(flow.getTargetRef());
        int fromColumn = columns.get(flow.getSourceRef());
        int toColumn = columns.get(flow.getTargetRef());
        boolean back = toColumn <= fromColumn;
        String path;
        int labelX;
        int labelY;
        if (lane != null && !back) {
            // from the lower right of its shape (a timer's from under its task), so it does not run along a flow to the right
            int startX = fromTimer ? from[0] : from[0] + from[2] / 2;
            int startY = from[1] + (fromTimer ? from[3] + 20 : from[3] / 2);
            int exitX = MARGIN + fromColumn * COLUMN + TASK_WIDTH + (COLUMN - TASK_WIDTH) / 2;
            int entryX = MARGIN + toColumn * COLUMN - (COLUMN - TASK_WIDTH) / 2;
            int endX = to[0] - to[2];
            path = "M " + startX + " " + startY + " C " + (startX + 20) + " " + (startY + 10) + ", " + exitX + " " + (startY + 4) + ", "
                    + exitX + " " + (startY + 24) + " L " + exitX + " " + lane + " L " + entryX + " " + lane + " L " + entryX + " " + to[1]
                    + " L " + endX + " " + to[1];
            labelX = exitX + 70;
            labelY = lane - 4;
        } else if (fromTimer) {
            int startY = from[1] + from[3] + 20;
            int endX = to[0] - to[2];
            path = "M " + from[0] + " " + startY + " C " + from[0] + " " + (startY + 30) + ", " + (endX - 40) + " " + to[1] + ", "
                    + endX + " " + to[1];
            labelX = (from[0] + endX) / 2;
            labelY = Math.max(startY, to[1]) + 14;
        } else if (back) {
            int below = Math.max(from[1] + from[3], to[1] + to[3]) + 22;
            path = "M " + from[0] + " " + (from[1] + from[3]) + " L " + from[0] + " " + below + " L " + to[0] + " " + below
                    + " L " + to[0] + " " + (to[1] + to[3]);
            labelX = (from[0] + to[0]) / 2;
            labelY = below - 4;
        } else {
            int startX = from[0] + from[2];
            int endX = to[0] - to[2];
            path = "M " + startX + " " + from[1] + " C " + (startX + 40) + " " + from[1] + ", " + (endX - 40) + " " + to[1] + ", "
                    + endX + " " + to[1];
            labelX = (startX + endX) / 2;
            labelY = (from[1] + to[1]) / 2 - 6;
        }
        svg.append("<g data-flow-id=\"").append(attribute(flow.getId())).append("\" data-source=\"").append(attribute(flow.getSourceRef()))
                .append("\" data-target=\"").append(attribute(flow.getTargetRef())).append("\"><path d=\"").append(path)
                .append("\" fill=\"none\" stroke=\"#444\" stroke-width=\"1.3\"").append(back ? " stroke-dasharray=\"5 3\"" : "")
                .append(" marker-end=\"url(#arrow)\"/>");
        String label = flow.getName() != null && !flow.getName().isBlank() ? flow.getName() : flow.getConditionExpression();
        if (label != null && !label.isBlank()) {
            svg.append("<text x=\"").append(labelX).append("\" y=\"").append(labelY).append("\" text-anchor=\"middle\" fill=\"#555\">")
                    .append(text(shortened(label, 40))).append("</text>");
        }
        svg.append("</g>\n");
    }

    private static void node(StringBuilder svg, FlowNode node, int[] c, List<BoundaryEvent> timers) {
        svg.append("<g data-element-id=\"").append(attribute(node.getId())).append("\" data-kind=\"")
                .append(node.getClass().getSimpleName().toLowerCase(Locale.ROOT)).append("\">");
        String name = node.getName() == null || node.getName().isBlank() ? node.getId() : node.getName();
        if (node instanceof Event) {
            boolean end = node instanceof EndEvent;
            svg.append("<circle cx=\"").append(c[0]).append("\" cy=\"").append(c[1]).append("\" r=\"").append(EVENT / 2)
                    .append("\" fill=\"").append(end ? "#fde8e8" : "#e8f5e9").append("\" stroke=\"#333\" stroke-width=\"")
                    .append(end ? 3 : 1.5).append("\"/>");
            caption(svg, c[0], c[1] + EVENT / 2 + 14, name, "#333");
        } else if (node instanceof Gateway) {
            int r = GATEWAY / 2;
            svg.append("<path d=\"M ").append(c[0]).append(' ').append(c[1] - r).append(" L ").append(c[0] + r).append(' ').append(c[1])
                    .append(" L ").append(c[0]).append(' ').append(c[1] + r).append(" L ").append(c[0] - r).append(' ').append(c[1])
                    .append(" z\" fill=\"#fff8e1\" stroke=\"#333\" stroke-width=\"1.5\"/>");
            caption(svg, c[0], c[1] + r + 14, name, "#333");
        } else {
            int x = c[0] - TASK_WIDTH / 2;
            int y = c[1] - TASK_HEIGHT / 2;
            svg.append("<rect x=\"").append(x).append("\" y=\"").append(y).append("\" width=\"").append(TASK_WIDTH).append("\" height=\"")
                    .append(TASK_HEIGHT).append("\" rx=\"10\" fill=\"#e3f2fd\" stroke=\"#333\" stroke-width=\"1.5\"/>");
            caption(svg, c[0], y + 20, shortened(name, 24), "#111");
            caption(svg, c[0], y + 36, shortened(node.getId(), 26), "#666");
            if (node instanceof UserTask task && !task.getCandidateGroups().isEmpty()) {
                caption(svg, c[0], y + 52, shortened("groups: " + String.join(", ", task.getCandidateGroups()), 26), "#1a4f8b");
            }
            for (BoundaryEvent timer : timers) {
                caption(svg, c[0], y + TASK_HEIGHT + 14, "timer " + shortened(timerText(timer), 20), "#8a4b00");
            }
        }
        svg.append("</g>\n");
    }

    private static String timerText(BoundaryEvent boundary) {
        return boundary.getEventDefinitions().stream().filter(TimerEventDefinition.class::isInstance).map(TimerEventDefinition.class::cast)
                .map(t -> t.getTimeDuration() != null ? t.getTimeDuration() : t.getTimeDate() != null ? t.getTimeDate() : t.getTimeCycle())
                .filter(t -> t != null).findFirst().orElse("");
    }

    private static void caption(StringBuilder svg, int x, int y, String value, String colour) {
        svg.append("<text x=\"").append(x).append("\" y=\"").append(y).append("\" text-anchor=\"middle\" fill=\"").append(colour)
                .append("\">").append(text(value)).append("</text>");
    }

    private static String shortened(String value, int max) {
        return value.length() <= max ? value : value.substring(0, max - 1) + "…";
    }

    private static String text(String value) {
        return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    private static String attribute(String value) {
        return text(value).replace("\"", "&quot;").replace("'", "&#39;");
    }
}
