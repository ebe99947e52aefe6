package dev.lockstep.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * CPU seconds spent so far by each process of one deployment, read from Linux's /proc: the service JVM,
 * each PostgreSQL server (the postmaster, its live backends and the ones it already reaped) and this JVM,
 * the load generator. Two samples around a window give the CPU each process spent per cycle, which is
 * what bounds throughput once the cores are busy (docs/performance.md). Where /proc is missing the
 * sample is empty and the report says "not measured".
 */
final class ProcessCpu {

    static final String SERVICE_JVM = "service JVM";
    static final String LOAD_GENERATOR = "load generator";
    /** USER_HZ: the unit of /proc's CPU times, 100 on every Linux the JDK supports. */
    private static final double TICKS_PER_SECOND = 100.0;

    private ProcessCpu() {
    }

    /** {@code dataDirectories}: the name of each PostgreSQL server to its data directory (holds postmaster.pid). */
    static Map<String, Double> sample(long serviceJvmPid, Map<String, Path> dataDirectories) {
        Map<String, Double> seconds = new LinkedHashMap<>();
        if (!Files.isDirectory(Path.of("/proc/self"))) {
            return seconds;
        }
        ownTicks(serviceJvmPid).ifPresent(ticks -> seconds.put(SERVICE_JVM, ticks / TICKS_PER_SECOND));
        dataDirectories.forEach((name, dataDirectory) -> postmasterPid(dataDirectory).ifPresent(postmaster -> {
            // reaped backends are in the postmaster's cumulative child times, live ones are read one by one
            long ticks = withReapedChildrenTicks(postmaster) + ProcessHandle.of(postmaster).stream()
                    .flatMap(ProcessHandle::descendants).mapToLong(child -> ownTicks(child.pid()).orElse(0)).sum();
            seconds.put(name, ticks / TICKS_PER_SECOND);
        }));
        ownTicks(ProcessHandle.current().pid()).ifPresent(ticks -> seconds.put(LOAD_GENERATOR, ticks / TICKS_PER_SECOND));
        return seconds;
    }

    /** Milliseconds per cycle of each process between two samples. */
    static Map<String, Double> millisPerCycle(Map<String, Double> before, Map<String, Double> after, long cycles) {
        Map<String, Double> perCycle = new LinkedHashMap<>();
        after.forEach((process, seconds) -> {
            if (before.containsKey(process)) {
                perCycle.put(process, (seconds - before.get(process)) * 1000 / Math.max(1, cycles));
            }
        });
        return perCycle;
    }

    private static OptionalLong ownTicks(long pid) {
        long[] fields = statFields(pid);
        return fields == null ? OptionalLong.empty() : OptionalLong.of(fields[0] + fields[1]);
    }

    private static long withReapedChildrenTicks(long pid) {
        long[] fields = statFields(pid);
        return fields == null ? 0 : fields[0] + fields[1] + fields[2] + fields[3];
    }

    /** utime, stime, cutime, cstime of /proc/pid/stat (fields 14-17; the command name before them may hold spaces). */
    private static long[] statFields(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            String[] after = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // after[0] is field 3 (state), so field n is after[n - 3]
            return new long[] {Long.parseLong(after[11]), Long.parseLong(after[12]), Long.parseLong(after[13]),
                    Long.parseLong(after[14])};
        } catch (IOException | RuntimeException gone) { // the process ended between listing and reading
            return null;
        }
    }

    private static OptionalLong postmasterPid(Path dataDirectory) {
        try {
            return OptionalLong.of(Long.parseLong(Files.readAllLines(dataDirectory.resolve("postmaster.pid")).get(0).trim()));
        } catch (IOException | RuntimeException notRunning) {
            return OptionalLong.empty();
        }
    }
}
