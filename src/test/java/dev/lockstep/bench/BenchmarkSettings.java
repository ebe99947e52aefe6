package dev.lockstep.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * What one benchmark run does. {@code launch} is how a service JVM is started: {@code -jar <boot jar>}
 * for the real run, {@code -cp <classpath> dev.lockstep.LockstepApplication} for the smoke run.
 */
record BenchmarkSettings(List<Integer> clientLevels, Duration warmup, Duration measure, List<String> launch, Path outputDir,
        boolean engineStage, Duration engineWarmup, Duration engineMeasure, Warmup jitWarmup, int rounds, Duration roundWarmup) {

    /**
     * The warm-up of each freshly started service in the comparison ({@link JitWarmup}): {@code clients} run
     * cycles in slices of {@code slice} until the JIT compiler uses under {@code jitShare} of the service's CPU
     * over a slice, for at most {@code limit} (zero: no such warm-up).
     */
    record Warmup(Duration limit, int clients, Duration slice, double jitShare) {

        static final Warmup NONE = new Warmup(Duration.ZERO, 0, Duration.ZERO, 0);
    }

    /**
     * {@code rounds}: each level's measured time is split into this many windows per deployment, XA and single
     * taking turns (the first round after {@code warmup}, the later ones after {@code roundWarmup}), and the
     * windows are pooled: a drift of the machine's speed then falls on both deployments instead of on one.
     *
     * <p>Without the engine-settings stage, without the JIT warm-up and in one round (the smoke run).
     */
    BenchmarkSettings(List<Integer> clientLevels, Duration warmup, Duration measure, List<String> launch, Path outputDir) {
        this(clientLevels, warmup, measure, launch, outputDir, false, Duration.ZERO, Duration.ZERO, Warmup.NONE, 1, Duration.ZERO);
    }

    /**
     * Reads {@code bench.*} system properties. The defaults (4 levels × 2 deployments × (15 s + 40 s),
     * then the engine-settings stage, 6 windows of 10 s + 20 s) take about 13 minutes with startups, plus the
     * JIT warm-up of the two services (up to 6 minutes each; 3 to 5 here).
     */
    static BenchmarkSettings fromSystemProperties(List<String> defaultLaunch) {
        List<Integer> levels = Arrays.stream(System.getProperty("bench.clients", "1,4,16,32").split(","))
                .map(String::trim).map(Integer::valueOf).toList();
        Duration warmup = Duration.ofSeconds(Long.getLong("bench.warmup-seconds", 15));
        Duration measure = Duration.ofSeconds(Long.getLong("bench.measure-seconds", 35));
        String jar = System.getProperty("bench.jar");
        List<String> launch = jar == null || jar.isBlank() ? defaultLaunch : List.of("-jar", jar);
        return new BenchmarkSettings(levels, warmup, measure, launch,
                Path.of(System.getProperty("bench.output", "target/bench")),
                Boolean.parseBoolean(System.getProperty("bench.engine", "true")),
                Duration.ofSeconds(Long.getLong("bench.engine-warmup-seconds", 10)),
                Duration.ofSeconds(Long.getLong("bench.engine-measure-seconds", 20)),
                new Warmup(Duration.ofSeconds(Long.getLong("bench.jit-warmup-limit-seconds", 360)),
                        Integer.getInteger("bench.jit-warmup-clients", 4),
                        Duration.ofSeconds(Long.getLong("bench.jit-warmup-slice-seconds", 15)),
                        Double.parseDouble(System.getProperty("bench.jit-warmup-share", "0.10"))),
                Integer.getInteger("bench.rounds", 3), Duration.ofSeconds(Long.getLong("bench.round-warmup-seconds", 5)));
    }
}
