package dev.lockstep.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * What one benchmark run does. {@code launch} is how a service JVM is started: {@code -jar <boot jar>}
 * for the real run, {@code -cp <classpath> dev.lockstep.LockstepApplication} for the smoke run.
 */
record BenchmarkSettings(List<Integer> clientLevels, Duration warmup, Duration measure, List<String> launch, Path outputDir) {

    /** Reads {@code bench.*} system properties; the defaults make a full run of about ten minutes. */
    static BenchmarkSettings fromSystemProperties(List<String> defaultLaunch) {
        List<Integer> levels = Arrays.stream(System.getProperty("bench.clients", "1,4,16,32").split(","))
                .map(String::trim).map(Integer::valueOf).toList();
        Duration warmup = Duration.ofSeconds(Long.getLong("bench.warmup-seconds", 20));
        Duration measure = Duration.ofSeconds(Long.getLong("bench.measure-seconds", 45));
        String jar = System.getProperty("bench.jar");
        List<String> launch = jar == null || jar.isBlank() ? defaultLaunch : List.of("-jar", jar);
        return new BenchmarkSettings(levels, warmup, measure, launch,
                Path.of(System.getProperty("bench.output", "target/bench")));
    }
}
