package dev.lockstep.transactions.workflow.definition;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads FlowDiagram's SVG back as shapes and flow paths, to check what a person sees: no flow drawn across a shape. */
final class DiagramGeometry {

    private static final Pattern NODE = Pattern.compile(
            "<g data-element-id=\"([^\"]+)\" data-kind=\"[a-z]+\"><(rect x=\"(-?\\d+)\" y=\"(-?\\d+)\" width=\"(\\d+)\" height=\"(\\d+)\""
                    + "|circle cx=\"(-?\\d+)\" cy=\"(-?\\d+)\" r=\"(\\d+)\"|path d=\"M (-?\\d+) (-?\\d+) L (-?\\d+) )");
    private static final Pattern FLOW = Pattern.compile(
            "<g data-flow-id=\"([^\"]+)\" data-source=\"([^\"]+)\" data-target=\"([^\"]+)\"><path d=\"([^\"]+)\"");
    /** Shapes are shrunk by this much before a point counts as inside: a flow ends on its shape's edge. */
    private static final int INSET = 3;

    private DiagramGeometry() {
    }

    /** Each flow that passes through the inside of a shape other than its source and target, with that shape. */
    static List<String> flowsThroughOtherShapes(String svg) {
        Map<String, int[]> boxes = new HashMap<>();
        Matcher node = NODE.matcher(svg);
        while (node.find()) {
            if (node.group(3) != null) {
                boxes.put(node.group(1), new int[] {num(node, 3), num(node, 4), num(node, 3) + num(node, 5), num(node, 4) + num(node, 6)});
            } else if (node.group(7) != null) {
                int r = num(node, 9);
                boxes.put(node.group(1), new int[] {num(node, 7) - r, num(node, 8) - r, num(node, 7) + r, num(node, 8) + r});
            } else {
                int cx = num(node, 10);
                int r = num(node, 12) - cx;
                int cy = num(node, 11) + r;
                boxes.put(node.group(1), new int[] {cx - r, cy - r, cx + r, cy + r});
            }
        }
        List<String> crossings = new ArrayList<>();
        Matcher flow = FLOW.matcher(svg);
        int flows = 0;
        while (flow.find()) {
            flows++;
            for (double[] point : points(flow.group(4))) {
                boxes.forEach((id, box) -> {
                    String crossing = flow.group(1) + " crosses " + id;
                    if (!id.equals(flow.group(2)) && !id.equals(flow.group(3)) && !isTimerOf(id, flow.group(2)) && inside(point, box)
                            && !crossings.contains(crossing)) {
                        crossings.add(crossing);
                    }
                });
            }
        }
        if (flows == 0 || boxes.isEmpty()) {
            throw new IllegalArgumentException("no flows or shapes read from the SVG: its markup changed");
        }
        return crossings;
    }

    /** A timer's flow starts under its task, whose id the compiler's timer id begins with. */
    private static boolean isTimerOf(String taskId, String source) {
        return source.equals(taskId + "-deadline");
    }

    private static boolean inside(double[] p, int[] box) {
        return p[0] > box[0] + INSET && p[0] < box[2] - INSET && p[1] > box[1] + INSET && p[1] < box[3] - INSET;
    }

    /** Points along an SVG path of M, L and C commands with absolute coordinates: 40 per segment. */
    private static List<double[]> points(String d) {
        String[] t = d.trim().split("[\\s,]+");
        List<double[]> points = new ArrayList<>();
        double x = 0;
        double y = 0;
        int i = 0;
        while (i < t.length) {
            switch (t[i]) {
                case "M" -> {
                    x = Double.parseDouble(t[i + 1]);
                    y = Double.parseDouble(t[i + 2]);
                    i += 3;
                }
                case "L" -> {
                    double nx = Double.parseDouble(t[i + 1]);
                    double ny = Double.parseDouble(t[i + 2]);
                    for (int k = 0; k <= 40; k++) {
                        points.add(new double[] {x + (nx - x) * k / 40, y + (ny - y) * k / 40});
                    }
                    x = nx;
                    y = ny;
                    i += 3;
                }
                case "C" -> {
                    double[] c = new double[6];
                    for (int k = 0; k < 6; k++) {
                        c[k] = Double.parseDouble(t[i + 1 + k]);
                    }
                    for (int k = 0; k <= 40; k++) {
                        double u = k / 40.0;
                        double a = (1 - u) * (1 - u) * (1 - u);
                        double b = 3 * (1 - u) * (1 - u) * u;
                        double e = 3 * (1 - u) * u * u;
                        double f = u * u * u;
                        points.add(new double[] {a * x + b * c[0] + e * c[2] + f * c[4], a * y + b * c[1] + e * c[3] + f * c[5]});
                    }
                    x = c[4];
                    y = c[5];
                    i += 7;
                }
                default -> throw new IllegalArgumentException("unexpected path command '" + t[i] + "' in " + d);
            }
        }
        return points;
    }

    private static int num(Matcher m, int group) {
        return Integer.parseInt(m.group(group));
    }
}
