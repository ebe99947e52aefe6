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
     * {@code profile}: where the service JVM spent the window ({@link ServiceProfile}; null where not recorded).
     */
    record DeploymentResult(double seconds, long cycles, double cyclesPerSecond, double writeTransactionsPerSecond,
            Map<Operation, OperationLatency> operations, Map<String, WalPerCycle> walPerCycle,
            Map<String, XaPhaseStatistics.PhaseTiming> xaPhases, Map<String, Double> cpuMillisPerCycle,
            ServiceProfile.Summary profile) {
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
            long measureSeconds, FsyncProbe.Result fsync, List<LevelResult> levels,
            FsyncFloor fsyncFloor, EngineSettingsStage.Result engineSettings, String engineSettingsFailure, String latencyChart) {
    }

    static Report run(BenchmarkSettings settings) throws Exception {
        Files.createDirectories(settings.outputDir());
        Instant started = Instant.now();
        double loadAtStart = loadAverage();
        FsyncProbe.Result fsync = FsyncProbe.measure(settings.outputDir(), Duration.ofSeconds(3));
        List<LevelResult> levels = new ArrayList<>();
        CompletableFuture<ServiceUnderTest> startingXa = startAsync(Deployment.XA, settings);
        CompletableFuture<ServiceUnderTest> startingSingle = startAsync(Deployment.SINGLE, settings);
        try (ServiceUnderTest xa = startingXa.join(); ServiceUnderTest single = startingSingle.join()) {
            for (ServiceUnderTest service : List.of(xa, single)) {
                for (String url : service.jdbcUrls.values()) {
                    WalStatistics.enableTiming(url);
                }
            }
            boolean xaFirst = true;
            for (int clients : settings.clientLevels()) {
                Map<Deployment, DeploymentResult> results = new EnumMap<>(Deployment.class);
                for (ServiceUnderTest service : xaFirst ? List.of(xa, single) : List.of(single, xa)) {
                    results.put(service.deployment, measure(service, clients, settings));
                }
                xaFirst = !xaFirst;
                DeploymentResult x = results.get(Deployment.XA);
                DeploymentResult s = results.get(Deployment.SINGLE);
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
                settings.measure().toSeconds(), fsync, levels, FsyncFloor.of(fsync), engine, engineFailure, chart);
        Files.writeString(settings.outputDir().resolve("report.json"), JSON.writeValueAsString(report));
        Files.writeString(settings.outputDir().resolve("summary.md"), BenchmarkSummary.markdown(report));
        return report;
    }

    private static CompletableFuture<ServiceUnderTest> startAsync(Deployment deployment, BenchmarkSettings settings) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return ServiceUnderTest.start(deployment, settings, List.of());
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    static DeploymentResult measure(ServiceUnderTest service, int clients, BenchmarkSettings settings) throws Exception {
        Path recording = settings.outputDir().resolve(service.deployment.name().toLowerCase() + "-" + clients + "-clients.jfr");
        return measure(service, clients, settings.warmup(), settings.measure(), ServiceProfile.wanted(clients) ? recording : null);
    }

    static DeploymentResult measure(ServiceUnderTest service, int clients, Duration warmup, Duration window) throws Exception {
        return measure(service, clients, warmup, window, null);
    }

    /** {@code recording}: where to write a JFR recording of the service over the window, or null for none. */
    static DeploymentResult measure(ServiceUnderTest service, int clients, Duration warmup, Duration window, Path recording)
            throws Exception {
        Map<String, WalStatistics> before = new LinkedHashMap<>();
        Map<String, WalStatistics> after = new LinkedHashMap<>();
        List<XaPhaseStatistics> phases = new ArrayList<>();
        List<Map<String, Double>> cpu = new ArrayList<>();
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
                    cpu.add(service.cpuSeconds());
                    before.putAll(walStatistics(service));
                    phases.add(XaPhaseStatistics.parse(service.prometheus()));
                }, () -> {
                    cpu.add(service.cpuSeconds());
                    after.putAll(walStatistics(service));
                    phases.add(XaPhaseStatistics.parse(service.prometheus()));
                    for (ServiceProfile recorder : profiling) {
                        profile.add(recorder.stop());
                    }
                });
        Map<Operation, OperationLatency> operations = new EnumMap<>(Operation.class);
        for (Operation operation : Operation.values()) {
            operations.put(operation, OperationLatency.of(run.latencies().histogram(operation), run.latencies().errors(operation)));
        }
        long cycles = Math.max(1, run.cycles());
        Map<String, WalPerCycle> wal = new LinkedHashMap<>();
        after.forEach((database, stats) -> {
            WalStatistics delta = stats.minus(before.get(database));
            wal.put(database, new WalPerCycle((double) delta.fsyncs() / cycles, delta.fsyncMillis() / cycles,
                    (double) delta.commits() / cycles));
        });
        return new DeploymentResult(run.seconds(), run.cycles(), run.cyclesPerSecond(),
                run.cyclesPerSecond() * ApprovalCycleClient.WRITE_TRANSACTIONS_PER_CYCLE, operations, wal,
                phases.get(1).since(phases.get(0), run.cycles()), ProcessCpu.millisPerCycle(cpu.get(0), cpu.get(1), run.cycles()),
                profile.isEmpty() ? null : profile.get(0));
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
