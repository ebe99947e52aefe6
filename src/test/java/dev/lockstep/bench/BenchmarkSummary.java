package dev.lockstep.bench;

import dev.lockstep.bench.ApprovalCycleClient.Operation;
import dev.lockstep.bench.Benchmark.DeploymentResult;
import dev.lockstep.bench.Benchmark.LevelResult;
import dev.lockstep.bench.Benchmark.OperationLatency;
import dev.lockstep.bench.Benchmark.Report;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The Markdown tables of a benchmark report, as pasted into docs/performance.md. */
final class BenchmarkSummary {

    private BenchmarkSummary() {
    }

    static String markdown(Report report) {
        StringBuilder md = new StringBuilder();
        Benchmark.Machine machine = report.machine();
        md.append("# Benchmark: XA (two databases) vs single database (local transaction)\n\n");
        md.append(format("Run %s to %s on %d cores (%s), %s, Java %s; load average %.1f at start, %.1f at end. Warm-up %d s,"
                + " measured %d s per deployment and level in %d rounds.\n\n", report.started(), report.finished(),
                machine.cores(), machine.cpu(), machine.os(), machine.java(), machine.loadAverageAtStart(),
                machine.loadAverageAtEnd(), report.warmupSeconds(), report.measureSeconds(), report.rounds()));
        FsyncProbe.Result fsync = report.fsync();
        md.append(format("Disk floor: 8 KiB write + fdatasync p50 %.0f µs, p99 %.0f µs, max %.0f µs (%d samples).%n%n",
                fsync.p50Micros(), fsync.p99Micros(), fsync.maxMicros(), fsync.samples()));
        md.append(format("CPU speed probe (CpuSpeedProbe: CPU time of SHA-256 over 16 MiB in the load generator) at the start:"
                + " %.1f ms. The throughput table gives its range over each level's window edges: a level whose probe rose well"
                + " above this ran on a slowed machine. Each level is measured in rounds, XA and single taking turns, and"
                + " pooled; the ratio of each round shows how far a single window could be off.%n%n", report.cpuProbeMillis()));

        jitWarmups(md, report);
        md.append("## Throughput\n\n| clients | XA cycles/s | single cycles/s | XA / single | XA write tx/s | single write tx/s |"
                + " cycle p50 XA / single | XA / single by round | CPU probe ms at the windows' edges, lowest–highest |"
                + "\n|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
        for (LevelResult level : report.levels()) {
            List<Double> xa = level.xa().cyclesPerSecondByRound();
            List<Double> single = level.single().cyclesPerSecondByRound();
            StringBuilder rounds = new StringBuilder();
            for (int i = 0; i < Math.min(xa.size(), single.size()); i++) {
                rounds.append(i == 0 ? "" : ", ").append(format("%.2f", xa.get(i) / single.get(i)));
            }
            md.append(format("| %d | %.1f | %.1f | **%.2f** | %.1f | %.1f | %.2f | %s | %.1f–%.1f |%n", level.clients(),
                    level.xa().cyclesPerSecond(), level.single().cyclesPerSecond(), level.throughputRatio(),
                    level.xa().writeTransactionsPerSecond(), level.single().writeTransactionsPerSecond(),
                    level.cycleP50LatencyRatio(), rounds, Math.min(level.xa().cpuProbeMillisLowest(),
                            level.single().cpuProbeMillisLowest()), Math.max(level.xa().cpuProbeMillisHighest(),
                            level.single().cpuProbeMillisHighest())));
        }

        md.append("\n## Latency per operation (ms)\n\n| clients | operation | XA p50 | XA p95 | XA p99 | XA max | single p50 |"
                + " single p95 | single p99 | single max | errors XA / single |\n|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (LevelResult level : report.levels()) {
            for (Operation operation : Operation.values()) {
                OperationLatency x = level.xa().operations().get(operation);
                OperationLatency s = level.single().operations().get(operation);
                md.append(format("| %d | %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %d / %d |%n",
                        level.clients(), operation.name().toLowerCase(), x.p50Millis(), x.p95Millis(), x.p99Millis(),
                        x.maxMillis(), s.p50Millis(), s.p95Millis(), s.p99Millis(), s.maxMillis(), x.errors(), s.errors()));
            }
        }

        md.append("\n## Durable writes per approval cycle (pg_stat_io, WAL)\n\n| clients | deployment | database |"
                + " WAL fsyncs / cycle | WAL fsync ms / cycle | commits / cycle |\n|---:|---|---|---:|---:|---:|\n");
        for (LevelResult level : report.levels()) {
            walRows(md, level.clients(), "XA", level.xa());
            walRows(md, level.clients(), "single", level.single());
        }
        cpuPerCycle(md, report);
        profiles(md, report);
        xaPhases(md, report);
        engineSettings(md, report.engineSettings());
        if (report.engineSettingsFailure() != null) {
            md.append("\n## Engine settings: not measured\n\n").append(report.engineSettingsFailure()).append('\n');
        }
        md.append("\n## Latency chart\n\n![p50 and p99 per operation, XA vs single](").append(report.latencyChart()).append(")\n");
        return md.toString();
    }

    /** At full cores throughput is the inverse of CPU per cycle: this says which process spends it. */
    private static void cpuPerCycle(StringBuilder md, Report report) {
        md.append("\n## CPU per approval cycle by process (/proc, ms)\n\n| clients | deployment | process | CPU ms / cycle |"
                + "\n|---:|---|---|---:|\n");
        for (LevelResult level : report.levels()) {
            cpuRows(md, level.clients(), "XA", level.xa());
            cpuRows(md, level.clients(), "single", level.single());
        }
    }

    /** How long each service ran cycles before the first level, and how much the compiler still used at the end. */
    private static void jitWarmups(StringBuilder md, Report report) {
        if (report.jitWarmups().values().stream().allMatch(warmup -> warmup.slices().isEmpty())) {
            return;
        }
        md.append("## JIT warm-up before the first level\n\nEach service ran approval cycles in slices until the JIT compiler"
                + " used under the threshold of its CPU over a slice (the first level is not measured cold).\n\n"
                + "| deployment | seconds | cycles | slices | JIT share of the service's CPU: first slice → last | under the threshold |"
                + "\n|---|---:|---:|---:|---|---|\n");
        report.jitWarmups().forEach((deployment, warmup) -> {
            if (!warmup.slices().isEmpty()) {
                md.append(format("| %s | %.0f | %d | %d | %.0f %% → %.0f %% | %s |%n", deployment.name().toLowerCase(),
                        warmup.seconds(), warmup.cycles(), warmup.slices().size(), 100 * warmup.slices().get(0).jitShare(),
                        100 * warmup.lastJitShare(), warmup.reached() ? "yes" : "no: the time limit ended it"));
            }
        });
        md.append('\n');
    }

    private static void cpuRows(StringBuilder md, int clients, String deployment, DeploymentResult result) {
        if (result.cpuMillisPerCycle().isEmpty()) {
            md.append(format("| %d | %s | not measured (no /proc) | |%n", clients, deployment));
            return;
        }
        result.cpuMillisPerCycle().forEach((process, millis) -> md.append(format("| %d | %s | %s | %.1f |%n", clients,
                deployment, process, millis)));
        md.append(format("| %d | %s | **all** | **%.1f** |%n", clients, deployment,
                result.cpuMillisPerCycle().values().stream().mapToDouble(Double::doubleValue).sum()));
        result.serviceThreadMillisPerCycle().forEach((kind, millis) -> md.append(format("| %d | %s | service JVM: %s | %.1f |%n",
                clients, deployment, kind, millis)));
    }

    /** The JFR summaries: the five heaviest groups of each kind; report.json has ten, the .jfr file everything. */
    private static void profiles(StringBuilder md, Report report) {
        for (LevelResult level : report.levels()) {
            profile(md, "XA, " + level.clients() + " clients", level.xa().profile());
            profile(md, "single, " + level.clients() + " clients", level.single().profile());
        }
    }

    /** {@code what}: the measured window, e.g. "XA, 16 clients"; nothing when it was not recorded. */
    static void profile(StringBuilder md, String what, ServiceProfile.Summary profile) {
        if (profile == null) {
            return;
        }
        md.append(format("%n## Where the service JVM spends the window: %s (JFR, `%s`)%n%n"
                + "%d CPU samples (all threads); %.0f ms sampled on the request threads (on the CPU or in native code, e.g."
                + " waiting for PostgreSQL; JFR's method sampling does not see a thread parked or blocked in Java).%n%n| | by the first frame outside the JDK | %% | by the first Lockstep frame | %% |%n"
                + "|---|---|---:|---|---:|%n", what, profile.recording(), profile.cpuSamples(),
                profile.requestThreadMillis()));
        frameRows(md, "CPU", profile.cpuByLibraryFrame(), profile.cpuByLockstepFrame());
        frameRows(md, "wall, request threads", profile.wallByLibraryFrame(), profile.wallByLockstepFrame());
    }

    private static void frameRows(StringBuilder md, String kind, List<ServiceProfile.Frame> library, List<ServiceProfile.Frame> lockstep) {
        for (int i = 0; i < 5 && (i < library.size() || i < lockstep.size()); i++) {
            ServiceProfile.Frame left = i < library.size() ? library.get(i) : null;
            ServiceProfile.Frame right = i < lockstep.size() ? lockstep.get(i) : null;
            md.append(format("| %s | %s | %s | %s | %s |%n", i == 0 ? kind : "", left == null ? "" : "`" + left.frame() + "`",
                    left == null ? "" : format("%.1f", left.percent()), right == null ? "" : "`" + right.frame() + "`",
                    right == null ? "" : format("%.1f", right.percent())));
        }
    }

    private static void xaPhases(StringBuilder md, Report report) {
        Benchmark.FsyncFloor floor = report.fsyncFloor();
        md.append(format("%n## Where the XA time goes (the service's own timers, lockstep_xa_*)%n%n"
                + "Floor of one XA write: %d sequential durable writes (intent row, the two prepares at once, coordinator log,"
                + " the two commits at once, intent outcome) × fsync p50 %.0f µs = **%.2f ms**.%n%n"
                + "| clients | timer | calls / cycle | mean ms | p99 ms (bucket bound) |%n|---:|---|---:|---:|---:|%n",
                floor.sequentialDurableWritesPerXaCommit(), report.fsync().p50Micros(), floor.millisPerXaCommit()));
        for (LevelResult level : report.levels()) {
            level.xa().xaPhases().forEach((timer, timing) -> md.append(format("| %d | %s | %.2f | %.2f | %.1f |%n",
                    level.clients(), timer, timing.perCycle(), timing.meanMillis(), timing.p99Millis())));
        }
    }

    private static void engineSettings(StringBuilder md, EngineSettingsStage.Result engine) {
        if (engine == null) {
            return;
        }
        md.append(format("%n## Engine settings (XA, %d clients, two rounds of %d s + %d s per variant, opposite order)%n%n"
                + "| settings | arguments | cycles | cycles/s | **vs default** | cycle p50 ms (mean of rounds) |"
                + " WAL fsyncs / cycle | errors |%n|---|---|---:|---:|---:|---:|---:|---:|%n",
                engine.clients(), engine.warmupSeconds(), engine.measureSeconds()));
        engine.variants().values().forEach(variant -> md.append(format("| %s | %s | %d | %.2f | **%.2f** | %.0f | %.1f | %d |%n",
                variant.settings(), variant.args().isEmpty() ? "—" : "`" + String.join(" ", variant.args()) + "`",
                variant.cycles(), variant.cyclesPerSecond(), variant.ratioToDefault(), variant.cycleP50Millis(),
                variant.walFsyncsPerCycle(), variant.errors())));
    }

    private static void walRows(StringBuilder md, int clients, String deployment, DeploymentResult result) {
        for (Map.Entry<String, Benchmark.WalPerCycle> database : result.walPerCycle().entrySet()) {
            Benchmark.WalPerCycle wal = database.getValue();
            md.append(format("| %d | %s | %s | %.2f | %.2f | %.2f |%n", clients, deployment, database.getKey(), wal.fsyncs(),
                    wal.fsyncMillis(), wal.commits()));
        }
    }

    private static String format(String pattern, Object... arguments) {
        return String.format(Locale.ROOT, pattern, arguments);
    }
}
