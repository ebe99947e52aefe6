package dev.lockstep.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The service's XA phase timers (lockstep_xa_branch_seconds per phase and resource,
 * lockstep_xa_decision_seconds), read from its Prometheus text at the two edges of a window. The
 * difference of the cumulative histograms is the window's own distribution: mean from sum and
 * count, p99 from the buckets (the upper bound of the bucket that holds the 99th percentile).
 */
final class XaPhaseStatistics {

    private static final Pattern SERIES = Pattern.compile(
            "^lockstep_xa_(branch|decision)_seconds_(bucket|count|sum)(?:\\{([^}]*)\\})? (\\S+)$", Pattern.MULTILINE);
    private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");

    /** One timer in one window; {@code perCycle} is its count divided by the window's approval cycles. */
    record PhaseTiming(long count, double perCycle, double meanMillis, double p99Millis) {
    }

    /** Cumulative figures of one timer: count, sum of seconds, count at or below each bucket bound. */
    private record Cumulative(double count, double sumSeconds, TreeMap<Double, Double> buckets) {
    }

    /** No timer: what the single-database deployment exposes, and the start of a sum of windows. */
    static final XaPhaseStatistics NONE = new XaPhaseStatistics(Map.of());

    private final Map<String, Cumulative> timers;

    private XaPhaseStatistics(Map<String, Cumulative> timers) {
        this.timers = timers;
    }

    /** Parses the timers out of a Prometheus text exposition; names are "phase resource" or "decision". */
    static XaPhaseStatistics parse(String prometheus) {
        Map<String, double[]> totals = new LinkedHashMap<>();
        Map<String, TreeMap<Double, Double>> buckets = new LinkedHashMap<>();
        Matcher series = SERIES.matcher(prometheus);
        while (series.find()) {
            Map<String, String> labels = new LinkedHashMap<>();
            Matcher label = LABEL.matcher(series.group(3) == null ? "" : series.group(3));
            while (label.find()) {
                labels.put(label.group(1), label.group(2));
            }
            String name = "decision".equals(series.group(1)) ? "decision log" : labels.get("phase") + " " + labels.get("resource");
            double value = Double.parseDouble(series.group(4));
            switch (series.group(2)) {
                case "count" -> totals.computeIfAbsent(name, n -> new double[2])[0] = value;
                case "sum" -> totals.computeIfAbsent(name, n -> new double[2])[1] = value;
                default -> {
                    String le = labels.get("le");
                    buckets.computeIfAbsent(name, n -> new TreeMap<>())
                            .put("+Inf".equals(le) ? Double.POSITIVE_INFINITY : Double.parseDouble(le), value);
                }
            }
        }
        Map<String, Cumulative> timers = new TreeMap<>();
        totals.forEach((name, total) -> timers.put(name,
                new Cumulative(total[0], total[1], buckets.getOrDefault(name, new TreeMap<>()))));
        return new XaPhaseStatistics(timers);
    }

    /** The differences from an earlier reading: one window's own counts, sums and buckets. */
    XaPhaseStatistics minus(XaPhaseStatistics earlier) {
        return combine(earlier, -1);
    }

    /** Two windows' differences taken together. */
    XaPhaseStatistics plus(XaPhaseStatistics other) {
        return combine(other, 1);
    }

    private XaPhaseStatistics combine(XaPhaseStatistics other, int sign) {
        Map<String, Cumulative> combined = new TreeMap<>();
        Set<String> names = new TreeSet<>(timers.keySet());
        names.addAll(other.timers.keySet());
        Cumulative none = new Cumulative(0, 0, new TreeMap<>());
        for (String name : names) {
            Cumulative mine = timers.getOrDefault(name, none);
            Cumulative theirs = other.timers.getOrDefault(name, none);
            TreeMap<Double, Double> buckets = new TreeMap<>(mine.buckets());
            theirs.buckets().forEach((bound, count) -> buckets.merge(bound, sign * count, Double::sum));
            combined.put(name, new Cumulative(mine.count() + sign * theirs.count(),
                    mine.sumSeconds() + sign * theirs.sumSeconds(), buckets));
        }
        return new XaPhaseStatistics(combined);
    }

    /** The timers of a difference ({@link #minus}, {@link #plus}) over {@code cycles} approval cycles. */
    Map<String, PhaseTiming> timings(long cycles) {
        return since(NONE, cycles);
    }

    /** What happened between {@code earlier} and this reading, per timer that counted anything. */
    Map<String, PhaseTiming> since(XaPhaseStatistics earlier, long cycles) {
        Map<String, PhaseTiming> window = new TreeMap<>();
        timers.forEach((name, now) -> {
            Cumulative before = earlier.timers.getOrDefault(name, new Cumulative(0, 0, new TreeMap<>()));
            long count = Math.round(now.count() - before.count());
            if (count <= 0) {
                return;
            }
            double mean = (now.sumSeconds() - before.sumSeconds()) / count * 1000;
            window.put(name, new PhaseTiming(count, (double) count / Math.max(1, cycles), mean,
                    percentile(now.buckets(), before.buckets(), count, 0.99) * 1000));
        });
        return window;
    }

    private static double percentile(TreeMap<Double, Double> now, TreeMap<Double, Double> before, long count, double quantile) {
        double rank = Math.ceil(quantile * count);
        List<Double> bounds = new ArrayList<>(now.keySet());
        for (double bound : bounds) {
            if (now.get(bound) - before.getOrDefault(bound, 0.0) >= rank) {
                return bound;
            }
        }
        return Double.NaN;
    }
}
