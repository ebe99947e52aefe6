package dev.lockstep.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Brings a freshly started service to its steady state before anything is measured on it: approval
 * cycles in slices until the JIT compiler's threads use less than a given share of the service JVM's CPU
 * over a slice (or a time limit passes). A service this size compiles for minutes under load: measured
 * cold, the first level's figures are mostly the compiler's (docs/performance.md, "The command"; the
 * measurements that showed it are in that file's git history), and the XA deployment, with more code on
 * its path, is colder for longer than the single one.
 */
final class JitWarmup {

    /** One slice: its cycles and the compiler's share of the service JVM's CPU over it. */
    record Slice(double seconds, long cycles, double jitShare) {
    }

    /** {@code reached}: whether the share fell under the threshold before the limit. */
    record Result(double seconds, long cycles, boolean reached, List<Slice> slices) {

        static final Result SKIPPED = new Result(0, 0, false, List.of());

        double lastJitShare() {
            return slices.isEmpty() ? Double.NaN : slices.get(slices.size() - 1).jitShare();
        }
    }

    private JitWarmup() {
    }

    static Result run(ServiceUnderTest service, BenchmarkSettings.Warmup settings) throws Exception {
        if (settings.limit().isZero()) {
            return Result.SKIPPED;
        }
        List<Slice> slices = new ArrayList<>();
        long started = System.nanoTime();
        long cycles = 0;
        boolean reached = false;
        while (!reached && System.nanoTime() - started < settings.limit().toNanos()) {
            List<ProcessCpu.ThreadTimes> threads = new ArrayList<>();
            LoadRun.Result slice = LoadRun.run(service.baseUrl(), settings.clients(), Duration.ZERO, settings.slice(),
                    () -> threads.add(ProcessCpu.serviceThreads(service.pid())),
                    () -> threads.add(ProcessCpu.serviceThreads(service.pid())));
            double share = jitShare(threads.get(0), threads.get(1));
            slices.add(new Slice(slice.seconds(), slice.cycles(), share));
            cycles += slice.cycles();
            reached = share < settings.jitShare();
        }
        return new Result((System.nanoTime() - started) / 1e9, cycles, reached, slices);
    }

    /** The compiler threads' share of the CPU of the service's threads over the slice; NaN without /proc. */
    private static double jitShare(ProcessCpu.ThreadTimes before, ProcessCpu.ThreadTimes after) {
        Map<String, Double> byKind = ProcessCpu.secondsByKind(before, after);
        double total = byKind.values().stream().mapToDouble(Double::doubleValue).sum();
        return total <= 0 ? Double.NaN : byKind.get(ProcessCpu.JIT_COMPILER) / total;
    }
}
