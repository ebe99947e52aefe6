package dev.lockstep.bench;

import dev.lockstep.bench.ApprovalCycleClient.Operation;
import dev.lockstep.bench.Benchmark.DeploymentResult;
import dev.lockstep.bench.ServiceUnderTest.Deployment;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Engine settings under 16 clients on the XA deployment (issue 5, item 5): the same jar started three
 * times with different {@code lockstep.engine.*} arguments, measured in two rounds in opposite order
 * so drifting load hits every variant alike; each variant's throughput is compared with the default.
 */
final class EngineSettingsStage {

    static final int CLIENTS = 16;

    enum Variant {
        DEFAULT("uuid ids, audit history (default)"),
        DB_IDS("engine DbIdGenerator ids", "--lockstep.engine.id-generator=db"),
        FULL_HISTORY("full history", "--lockstep.engine.history-level=full");

        final String description;
        final List<String> args;

        Variant(String description, String... args) {
            this.description = description;
            this.args = List.of(args);
        }
    }

    /** Both rounds' windows of one variant, pooled. */
    record VariantResult(String settings, List<String> args, long cycles, double seconds, double cyclesPerSecond,
            double ratioToDefault, double cycleP50Millis, double walFsyncsPerCycle, long errors) {
    }

    record Result(int clients, long warmupSeconds, long measureSeconds, Map<Variant, VariantResult> variants) {
    }

    private EngineSettingsStage() {
    }

    static Result run(BenchmarkSettings settings) throws Exception {
        // one at a time: three JVMs and six PostgreSQL servers starting at once on 2 cores can take minutes
        Map<Variant, ServiceUnderTest> services = new LinkedHashMap<>();
        Map<Variant, List<DeploymentResult>> windows = new LinkedHashMap<>();
        try {
            for (Variant variant : Variant.values()) {
                services.put(variant, ServiceUnderTest.start(Deployment.XA, "engine-" + variant.name().toLowerCase(),
                        settings, variant.args));
            }
            List<Variant> order = new ArrayList<>(List.of(Variant.values()));
            for (int round = 0; round < 2; round++) {
                for (Variant variant : order) {
                    windows.computeIfAbsent(variant, v -> new ArrayList<>()).add(
                            Benchmark.measure(services.get(variant), CLIENTS, settings.engineWarmup(), settings.engineMeasure()));
                }
                Collections.reverse(order);
            }
        } finally {
            services.values().forEach(ServiceUnderTest::close);
        }
        double defaultRate = pooledRate(windows.get(Variant.DEFAULT));
        Map<Variant, VariantResult> variants = new LinkedHashMap<>();
        windows.forEach((variant, results) -> {
            long cycles = results.stream().mapToLong(DeploymentResult::cycles).sum();
            double rate = pooledRate(results);
            double fsyncs = results.stream().mapToDouble(r -> r.cycles() * r.walPerCycle().values().stream()
                    .mapToDouble(Benchmark.WalPerCycle::fsyncs).sum()).sum() / Math.max(1, cycles);
            double p50 = results.stream().mapToDouble(r -> r.operations().get(Operation.CYCLE).p50Millis()).average().orElse(0);
            long errors = results.stream().flatMap(r -> r.operations().values().stream())
                    .mapToLong(Benchmark.OperationLatency::errors).sum();
            variants.put(variant, new VariantResult(variant.description, variant.args, cycles,
                    results.stream().mapToDouble(DeploymentResult::seconds).sum(), rate, rate / defaultRate, p50, fsyncs, errors));
        });
        return new Result(CLIENTS, settings.engineWarmup().toSeconds(), settings.engineMeasure().toSeconds(), variants);
    }

    private static double pooledRate(List<DeploymentResult> windows) {
        return windows.stream().mapToLong(DeploymentResult::cycles).sum()
                / windows.stream().mapToDouble(DeploymentResult::seconds).sum();
    }
}
