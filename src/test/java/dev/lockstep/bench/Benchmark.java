package dev.lockstep.bench;

import dev.lockstep.bench.ApprovalCycleClient.Operation;
import dev.lockstep.bench.ServiceUnderTest.Deployment;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.HdrHistogram.Histogram;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The price of atomicity, measured in one run: the built service started twice side by side, in the
 * XA deployment and in the single-database deployment, driven by the same clients at each
 * concurrency level. The two are measured alternately at every level so that drifting load from
 * elsewhere on the machine hits both alike; the XA/single ratios are the figures that count.
 */
final class Benchmark {

    private static final JsonMapper JSON = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();
    /**
     * The comparison measures what atomicity costs, so both deployments do the same work: the single database
     * writes each approval's publish event and runs no publisher (docs/single-database.md), and so does the XA
     * service here. Publishing has its own stage ({@link PublishBenchmark}).
     */
    static final List<String> LIKE_THE_SINGLE_DATABASE = List.of("--lockstep.publish.enabled=false");

    private Benchmark() {
    }

    record OperationLatency(long count, long errors, double p50Millis, double p95Millis, double p99Millis, double maxMillis) {

        static OperationLatency of(Histogram micros, long errors) {
            return new OperationLatency(micros.getTotalCount(), errors, micros.getValueAtPercentile(50) / 1000.0,
                    micros.getValueAtPercentile(95) / 1000.0, micros.getValueAtPercentile(99) / 1000.0,
                    micros.getMaxValue() / 1000.0);
        }
    }

    /** Durable-write work of one cycle on one database, from its own statistics. */
    record WalPerCycle(double fsyncs, double fsyncMillis, double commits) {
    }

    /**
     * {@code xaPhases}: the service's own XA phase timers over the window (empty for the single database);
     * {@code cpuMillisPerCycle}: CPU of each process per cycle ({@link ProcessCpu}; empty where not measured);
     * {@code serviceThreadMillisPerCycle}: the service JVM's part of that by kind of thread ({@link ProcessCpu#serviceThreads});
     * {@code profile}: where the service JVM spent the window ({@link ServiceProfile}; null where not recorded);
     * {@code cpuProbeMillis*}: how slow the machine's CPU was at the windows' edges ({@link CpuSpeedProbe});
     * {@code cyclesPerSecondByRound}: the throughput of each of the level's windows (rounds), in order.
     */
    record DeploymentResult(double seconds, long cycles, double cyclesPerSecond, double writeTransactionsPerSecond,
            Map<Operation, OperationLatency> operations, Map<String, WalPerCycle> walPerCycle,
            Map<String, XaPhaseStatistics.PhaseTiming> xaPhases, Map<String, Double> cpuMillisPerCycle,
            Map<String, Double> serviceThreadMillisPerCycle, ServiceProfile.Summary profile, double cpuProbeMillisLowest,
            double cpuProbeMillisHighest, List<Double> cyclesPerSecondByRound) {
    }

    record LevelResult(int clients, DeploymentResult xa, DeploymentResult single, double throughputRatio,
            double cycleP50LatencyRatio) {
    }

    record Machine(int cores, String cpu, String os, String java, double loadAverageAtStart, double loadAverageAtEnd) {
    }

    /**
     * The floor of one XA write: the durable writes it makes one after another (intent journal row, the
     * two prepares, coordinator log, the two commits, intent journal outcome) times the disk's fsync p50.
     * The two prepares run at the same time, and so do the two commits (lockstep.tm.parallel-commit, the
     * service's default): 5 one after another; 7 with the setting off.
     */
    record FsyncFloor(int sequentialDurableWritesPerXaCommit, double millisPerXaCommit) {

        static final int SEQUENTIAL_WRITES = 5;

        static FsyncFloor of(FsyncProbe.Result fsync) {
            return new FsyncFloor(SEQUENTIAL_WRITES, SEQUENTIAL_WRITES * fsync.p50Micros() / 1000);
        }
    }

    record Report(Instant started, Instant finished, Machine machine, List<Integer> clientLevels, long warmupSeconds,
            long measureSeconds, int rounds, FsyncProbe.Result fsync, double cpuProbeMillis, Map<Deployment, JitWarmup.Result> jitWarmups,
            List<LevelResult> levels,
            FsyncFloor fsyncFloor, EngineSettingsStage.Result engineSettings, String engineSettingsFailure, String latencyChart) {
    }

    static Report run(BenchmarkSettings settings) throws Exception {
        Files.createDirectories(settings.outputDir());
        Instant started = Instant.now();
        double loadAtStart = loadAverage();
        FsyncProbe.Result fsync = FsyncProbe.measure(settings.outputDir(), Duration.ofSeconds(3));
        double cpuProbe = Double.MAX_VALUE;
        for (int i = 0; i < 20; i++) { // the first runs are the JIT's; the fastest is the machine's
            cpuProbe = Math.min(cpuProbe, CpuSpeedProbe.millis());
        }
        List<LevelResult> levels = new ArrayList<>();
        Map<Deployment, JitWarmup.Result> warmups = new EnumMap<>(Deployment.class);
        CompletableFuture<ServiceUnderTest> startingXa = startAsync(Deployment.XA, settings, LIKE_THE_SINGLE_DATABASE);
        CompletableFuture<ServiceUnderTest> startingSingle = startAsync(Deployment.SINGLE, settings, List.of());
        try (ServiceUnderTest xa = startingXa.join(); ServiceUnderTest single = startingSingle.join()) {
            for (ServiceUnderTest service : List.of(xa, single)) {
                for (String url : service.jdbcUrls.values()) {
                    WalStatistics.enableTiming(url);
                }
                if (settings.clientLevels().stream().anyMatch(ServiceProfile::wanted)) {
                    // JFR's first start instruments the JDK's socket and file classes, and the JIT compiles again
                    // what used them: that belongs in the warm-up, not in the first recorded window
                    ServiceProfile.warmUp(service.pid());
                }
                warmups.put(service.deployment, JitWarmup.run(service, settings.jitWarmup()));
            }
            boolean xaFirst = true;
            for (int clients : settings.clientLevels()) {
                Map<Deployment, List<Window>> windows = new EnumMap<>(Deployment.class);
                for (int round = 0; round < settings.rounds(); round++) {
                    // alternate which goes first, round by round and level by level, so drifting load hits both alike
                    for (ServiceUnderTest service : xaFirst == (round % 2 == 0) ? List.of(xa, single) : List.of(single, xa)) {
                        Path recording = round == 0 && ServiceProfile.wanted(clients) ? settings.outputDir()
                                .resolve(service.deployment.name().toLowerCase() + "-" + clients + "-clients.jfr") : null;
                        windows.computeIfAbsent(service.deployment, d -> new ArrayList<>()).add(window(service, clients,
                                round == 0 ? settings.warmup() : settings.roundWarmup(),
                                settings.measure().dividedBy(settings.rounds()), recording));
                    }
                }
                xaFirst = !xaFirst;
                DeploymentResult x = result(windows.get(Deployment.XA));
                DeploymentResult s = result(windows.get(Deployment.SINGLE));
                levels.add(new LevelResult(clients, x, s, x.cyclesPerSecond() / s.cyclesPerSecond(),
                        x.operations().get(Operation.CYCLE).p50Millis() / s.operations().get(Operation.CYCLE).p50Millis()));
            }
        } finally {
            startingXa.thenAccept(ServiceUnderTest::close);
            startingSingle.thenAccept(ServiceUnderTest::close);
        }
        EngineSettingsStage.Result engine = null;
        String engineFailure = null;
        try {
            engine = settings.engineStage() ? EngineSettingsStage.run(settings) : null;
        } catch (Exception e) { // the stages before it still get their report
            engineFailure = e.toString();
        }
        String chart = LatencyChart.write(levels, settings.outputDir());
        Report report = new Report(started, Instant.now(), new Machine(Runtime.getRuntime().availableProcessors(), cpuModel(),
                System.getProperty("os.name") + " " + System.getProperty("os.version"), System.getProperty("java.version"),
                loadAtStart, loadAverage()), settings.clientLevels(), settings.warmup().toSeconds(),
                settings.measure().toSeconds(), settings.rounds(), fsync, cpuProbe, warmups, levels, FsyncFloor.of(fsync), engine, engineFailure,
                chart);
        Files.writeString(settings.outputDir().resolve("report.json"), JSON.writeValueAsString(report));
        Files.writeString(settings.outputDir().resolve("summary.md"), BenchmarkSummary.markdown(report));
        return report;
    }

    private static CompletableFuture<ServiceUnderTest> startAsync(Deployment deployment, BenchmarkSettings settings,
            List<String> arguments) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return ServiceUnderTest.start(deployment, settings, arguments);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    static DeploymentResult measure(ServiceUnderTest service, int clients, Duration warmup, Duration window) throws Exception {
        return result(List.of(window(service, clients, warmup, window, null)));
    }

    /**
     * What one measured window saw of one service: its cycles and latencies, and the differences of the servers'
     * counters between its edges. {@code threadSeconds}: CPU by kind of thread of the service JVM; {@code probes}:
     * the CPU speed probe at both edges.
     */
    record Window(double seconds, long cycles, LatencyRecording latencies, Map<String, WalStatistics> wal,
            XaPhaseStatistics phases, Map<String, Double> cpuSeconds, Map<String, Double> threadSeconds,
            ServiceProfile.Summary profile, List<Double> probes) {
    }

    /** {@code recording}: where to write a JFR recording of the service over the window, or null for none. */
    static Window window(ServiceUnderTest service, int clients, Duration warmup, Duration window, Path recording)
            throws Exception {
        Map<String, WalStatistics> before = new LinkedHashMap<>();
        Map<String, WalStatistics> after = new LinkedHashMap<>();
        List<XaPhaseStatistics> phases = new ArrayList<>();
        List<Map<String, Double>> cpu = new ArrayList<>();
        List<ProcessCpu.ThreadTimes> threads = new ArrayList<>();
        List<Double> probes = new ArrayList<>();
        List<ServiceProfile> profiling = new ArrayList<>();
        List<ServiceProfile.Summary> profile = new ArrayList<>();
        if (recording != null) {
            ServiceProfile.warmUp(service.pid());
        }
        LoadRun.Result run = LoadRun.run(service.baseUrl(), clients, warmup, window,
                () -> {
                    if (recording != null) {
                        profiling.add(ServiceProfile.start(service.pid(), recording));
                    }
                    probes.add(CpuSpeedProbe.millis());
                    cpu.add(service.cpuSeconds());
                    threads.add(ProcessCpu.serviceThreads(service.pid()));
                    before.putAll(walStatistics(service));
                    phases.add(XaPhaseStatistics.parse(service.prometheus()));
                }, () -> {
                    cpu.add(service.cpuSeconds());
                    threads.add(ProcessCpu.serviceThreads(service.pid()));
                    probes.add(CpuSpeedProbe.millis());
                    after.putAll(walStatistics(service));
                    phases.add(XaPhaseStatistics.parse(service.prometheus()));
                    for (ServiceProfile recorder : profiling) {
                        profile.add(recorder.stop());
                    }
                });
        Map<String, WalStatistics> wal = new LinkedHashMap<>();
        after.forEach((database, stats) -> wal.put(database, stats.minus(before.get(database))));
        Map<String, Double> cpuSeconds = new LinkedHashMap<>();
        cpu.get(1).forEach((process, seconds) -> {
            if (cpu.get(0).containsKey(process)) {
                cpuSeconds.put(process, seconds - cpu.get(0).get(process));
            }
        });
        Map<String, Double> threadSeconds = threads.get(1).seconds().isEmpty() ? Map.of()
                : ProcessCpu.secondsByKind(threads.get(0), threads.get(1));
        return new Window(run.seconds(), run.cycles(), run.latencies(), wal, phases.get(1).minus(phases.get(0)), cpuSeconds,
                threadSeconds, profile.isEmpty() ? null : profile.get(0), probes);
    }

    /** The windows of one deployment at one level taken together: their cycles over their time, counters summed. */
    static DeploymentResult result(List<Window> windows) {
        double seconds = windows.stream().mapToDouble(Window::seconds).sum();
        long measured = windows.stream().mapToLong(Window::cycles).sum();
        long cycles = Math.max(1, measured);
        LatencyRecording latencies = new LatencyRecording();
        Map<String, WalStatistics> wal = new LinkedHashMap<>();
        XaPhaseStatistics phases = XaPhaseStatistics.NONE;
        Map<String, Double> cpuSeconds = new LinkedHashMap<>();
        Map<String, Double> threadSeconds = new LinkedHashMap<>();
        for (Window window : windows) {
            latencies.add(window.latencies());
            window.wal().forEach((database, delta) -> wal.merge(database, delta, WalStatistics::plus));
            phases = phases.plus(window.phases());
            window.cpuSeconds().forEach((process, cpu) -> cpuSeconds.merge(process, cpu, Double::sum));
            window.threadSeconds().forEach((kind, cpu) -> threadSeconds.merge(kind, cpu, Double::sum));
        }
        Map<Operation, OperationLatency> operations = new EnumMap<>(Operation.class);
        for (Operation operation : Operation.values()) {
            operations.put(operation, OperationLatency.of(latencies.histogram(operation), latencies.errors(operation)));
        }
        Map<String, WalPerCycle> walPerCycle = new LinkedHashMap<>();
        wal.forEach((database, delta) -> walPerCycle.put(database, new WalPerCycle((double) delta.fsyncs() / cycles,
                delta.fsyncMillis() / cycles, (double) delta.commits() / cycles)));
        Map<String, Double> cpuPerCycle = new LinkedHashMap<>();
        cpuSeconds.forEach((process, cpu) -> cpuPerCycle.put(process, cpu * 1000 / cycles));
        Map<String, Double> threadsPerCycle = new LinkedHashMap<>();
        threadSeconds.forEach((kind, cpu) -> threadsPerCycle.put(kind, cpu * 1000 / cycles));
        if (!threadsPerCycle.isEmpty()) {
            double seen = threadsPerCycle.values().stream().mapToDouble(Double::doubleValue).sum();
            threadsPerCycle.put(ProcessCpu.ENDED_THREADS, Math.max(0, cpuPerCycle.getOrDefault(ProcessCpu.SERVICE_JVM, 0.0) - seen));
        }
        List<Double> probes = windows.stream().flatMap(window -> window.probes().stream()).toList();
        return new DeploymentResult(seconds, measured, measured / seconds,
                measured / seconds * ApprovalCycleClient.WRITE_TRANSACTIONS_PER_CYCLE, operations, walPerCycle,
                phases.timings(cycles), cpuPerCycle, threadsPerCycle,
                windows.stream().map(Window::profile).filter(Objects::nonNull).findFirst().orElse(null),
                probes.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN),
                probes.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN),
                windows.stream().map(window -> window.cycles() / window.seconds()).toList());
    }

    private static Map<String, WalStatistics> walStatistics(ServiceUnderTest service) throws SQLException {
        Map<String, WalStatistics> statistics = new LinkedHashMap<>();
        for (Map.Entry<String, String> database : service.jdbcUrls.entrySet()) {
            statistics.put(database.getKey(), WalStatistics.read(database.getValue()));
        }
        return statistics;
    }

    private static double loadAverage() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    private static String cpuModel() throws IOException {
        Path cpuinfo = Path.of("/proc/cpuinfo");
        if (!Files.exists(cpuinfo)) {
            return "unknown";
        }
        return Files.readAllLines(cpuinfo).stream().filter(line -> line.startsWith("model name"))
                .map(line -> line.substring(line.indexOf(':') + 1).trim()).findFirst().orElse("unknown");
    }
}
