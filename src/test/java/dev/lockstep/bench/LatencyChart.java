package dev.lockstep.bench;

import dev.lockstep.bench.ApprovalCycleClient.Operation;
import dev.lockstep.bench.Benchmark.DeploymentResult;
import dev.lockstep.bench.Benchmark.LevelResult;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.Stroke;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;
import javax.imageio.ImageIO;

/**
 * latency.png: one panel per operation, p50 (solid) and p99 (dashed) latency against the number of
 * clients, XA in red and the single database in blue, on a logarithmic millisecond axis. Java2D,
 * headless, no dependency.
 */
final class LatencyChart {

    static final String FILE = "latency.png";
    private static final int PANEL_WIDTH = 420;
    private static final int PANEL_HEIGHT = 300;
    private static final int COLUMNS = 3;
    private static final Color XA = new Color(200, 40, 40);
    private static final Color SINGLE = new Color(40, 80, 200);
    private static final Stroke SOLID = new BasicStroke(2f);
    private static final Stroke DASHED = new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f);

    private LatencyChart() {
    }

    /** Writes the chart into {@code directory} and returns its file name. */
    static String write(List<LevelResult> levels, Path directory) throws IOException {
        System.setProperty("java.awt.headless", "true");
        Operation[] operations = Operation.values();
        int rows = (operations.length + COLUMNS - 1) / COLUMNS;
        BufferedImage image = new BufferedImage(PANEL_WIDTH * COLUMNS, PANEL_HEIGHT * rows + 40, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, image.getWidth(), image.getHeight());
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        legend(g);
        for (int i = 0; i < operations.length; i++) {
            panel(g, levels, operations[i], (i % COLUMNS) * PANEL_WIDTH, 40 + (i / COLUMNS) * PANEL_HEIGHT);
        }
        g.dispose();
        ImageIO.write(image, "png", directory.resolve(FILE).toFile());
        return FILE;
    }

    private static void legend(Graphics2D g) {
        int x = 20;
        for (Object[] entry : new Object[][] {{XA, SOLID, "XA p50"}, {XA, DASHED, "XA p99"}, {SINGLE, SOLID, "single p50"},
                {SINGLE, DASHED, "single p99"}}) {
            g.setColor((Color) entry[0]);
            g.setStroke((Stroke) entry[1]);
            g.drawLine(x, 20, x + 30, 20);
            g.setColor(Color.BLACK);
            g.drawString((String) entry[2], x + 36, 24);
            x += 130;
        }
        g.drawString("latency (ms, log scale) by clients", x + 20, 24);
    }

    private static void panel(Graphics2D g, List<LevelResult> levels, Operation operation, int left, int top) {
        int x0 = left + 55;
        int y0 = top + PANEL_HEIGHT - 40;
        int width = PANEL_WIDTH - 75;
        int height = PANEL_HEIGHT - 70;
        double max = 1;
        double min = Double.MAX_VALUE;
        for (LevelResult level : levels) {
            for (DeploymentResult result : List.of(level.xa(), level.single())) {
                max = Math.max(max, result.operations().get(operation).p99Millis());
                min = Math.min(min, Math.max(0.1, result.operations().get(operation).p50Millis()));
            }
        }
        double logMin = Math.floor(Math.log10(Math.min(min, max)));
        double logMax = Math.max(logMin + 1, Math.ceil(Math.log10(max)));
        g.setColor(Color.BLACK);
        g.setStroke(new BasicStroke(1f));
        g.drawString(operation.name().toLowerCase(Locale.ROOT), x0, top + 20);
        g.drawLine(x0, y0, x0 + width, y0);
        g.drawLine(x0, y0, x0, y0 - height);
        for (double decade = logMin; decade <= logMax; decade++) {
            int y = (int) (y0 - (decade - logMin) / (logMax - logMin) * height);
            g.setColor(new Color(225, 225, 225));
            g.drawLine(x0 + 1, y, x0 + width, y);
            g.setColor(Color.BLACK);
            g.drawString(String.format(Locale.ROOT, "%,.0f", Math.pow(10, decade)).replace(",", " ")
                    .replaceFirst("^0$", "0.1"), left + 5, y + 4);
        }
        for (int i = 0; i < levels.size(); i++) {
            g.drawString(Integer.toString(levels.get(i).clients()), xAt(x0, width, i, levels.size()) - 4, y0 + 16);
        }
        line(g, levels, l -> l.xa().operations().get(operation).p50Millis(), XA, SOLID, x0, y0, width, height, logMin, logMax);
        line(g, levels, l -> l.xa().operations().get(operation).p99Millis(), XA, DASHED, x0, y0, width, height, logMin, logMax);
        line(g, levels, l -> l.single().operations().get(operation).p50Millis(), SINGLE, SOLID, x0, y0, width, height, logMin,
                logMax);
        line(g, levels, l -> l.single().operations().get(operation).p99Millis(), SINGLE, DASHED, x0, y0, width, height, logMin,
                logMax);
    }

    private static void line(Graphics2D g, List<LevelResult> levels, ToDoubleFunction<LevelResult> millis, Color color,
            Stroke stroke, int x0, int y0, int width, int height, double logMin, double logMax) {
        g.setColor(color);
        g.setStroke(stroke);
        int previousX = -1;
        int previousY = -1;
        for (int i = 0; i < levels.size(); i++) {
            double value = Math.max(Math.pow(10, logMin), millis.applyAsDouble(levels.get(i)));
            int x = xAt(x0, width, i, levels.size());
            int y = (int) (y0 - (Math.log10(value) - logMin) / (logMax - logMin) * height);
            g.fillOval(x - 3, y - 3, 6, 6);
            if (previousX >= 0) {
                g.drawLine(previousX, previousY, x, y);
            }
            previousX = x;
            previousY = y;
        }
    }

    private static int xAt(int x0, int width, int index, int count) {
        return count == 1 ? x0 + width / 2 : x0 + 20 + (width - 40) * index / (count - 1);
    }
}
