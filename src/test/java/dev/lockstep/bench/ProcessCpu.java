package dev.lockstep.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.stream.Stream;

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
    static final String HTTP_THREADS = "HTTP threads (requests)";
    static final String JIT_COMPILER = "JIT compiler";
    static final String GARBAGE_COLLECTOR = "garbage collector";
    static final String OTHER_THREADS = "other threads";
    static final String ENDED_THREADS = "threads that ended in the window";
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

    /** CPU seconds so far of each thread of the service JVM (by thread id), with what kind of thread it is. */
    record ThreadTimes(Map<Long, String> kinds, Map<Long, Double> seconds) {

        static final ThreadTimes NONE = new ThreadTimes(Map.of(), Map.of());
    }

    /**
     * The service JVM's threads, each by what it does: Tomcat's HTTP threads (the requests), the JIT compiler,
     * the garbage collector (and the VM thread, which runs its safepoints) and every other thread (the
     * transaction manager's, the engine's job executors, pools, schedulers). Empty without /proc.
     */
    static ThreadTimes serviceThreads(long serviceJvmPid) {
        Map<Long, String> kinds = new LinkedHashMap<>();
        Map<Long, Double> seconds = new LinkedHashMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(serviceJvmPid), "task"))) {
            tasks.forEach(task -> {
                String stat = read(task.resolve("stat"));
                if (stat != null) {
                    long tid = Long.parseLong(task.getFileName().toString());
                    long[] fields = fieldsOf(stat);
                    kinds.put(tid, kindOf(stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'))));
                    seconds.put(tid, (fields[0] + fields[1]) / TICKS_PER_SECOND);
                }
            });
        } catch (IOException | UncheckedIOException noProc) {
            return ThreadTimes.NONE;
        }
        return new ThreadTimes(kinds, seconds);
    }

    /**
     * CPU seconds of each kind of thread between two samples, over the threads alive at the second (a thread
     * started in between counts from zero; one that ended in between is not seen: compiler threads come and go).
     */
    static Map<String, Double> secondsByKind(ThreadTimes before, ThreadTimes after) {
        Map<String, Double> byKind = new LinkedHashMap<>();
        for (String kind : List.of(HTTP_THREADS, JIT_COMPILER, GARBAGE_COLLECTOR, OTHER_THREADS)) {
            byKind.put(kind, 0.0);
        }
        after.seconds().forEach((tid, seconds) -> byKind.merge(after.kinds().get(tid),
                seconds - before.seconds().getOrDefault(tid, 0.0), Double::sum));
        return byKind;
    }

    /** {@link #secondsByKind} per cycle, plus the CPU of the threads that ended in the window (the rest of the JVM's). */
    static Map<String, Double> threadMillisPerCycle(ThreadTimes before, ThreadTimes after, double serviceJvmMillisPerCycle,
            long cycles) {
        Map<String, Double> perCycle = new LinkedHashMap<>();
        if (after.seconds().isEmpty()) {
            return perCycle;
        }
        secondsByKind(before, after).forEach((kind, seconds) -> perCycle.put(kind, seconds * 1000 / Math.max(1, cycles)));
        double seen = perCycle.values().stream().mapToDouble(Double::doubleValue).sum();
        perCycle.put(ENDED_THREADS, Math.max(0, serviceJvmMillisPerCycle - seen));
        return perCycle;
    }

    /** By the thread's name as Linux keeps it (its first 15 characters). */
    private static String kindOf(String threadName) {
        if (threadName.startsWith("http-nio-")) {
            return HTTP_THREADS;
        }
        if (threadName.contains("CompilerThre")) {
            return JIT_COMPILER;
        }
        if (threadName.startsWith("GC Thread") || threadName.startsWith("G1 ") || threadName.equals("VM Thread")) {
            return GARBAGE_COLLECTOR;
        }
        return OTHER_THREADS;
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
        String stat = read(Path.of("/proc", Long.toString(pid), "stat"));
        return stat == null ? null : fieldsOf(stat);
    }

    private static long[] fieldsOf(String stat) {
        String[] after = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        // after[0] is field 3 (state), so field n is after[n - 3]
        return new long[] {Long.parseLong(after[11]), Long.parseLong(after[12]), Long.parseLong(after[13]),
                Long.parseLong(after[14])};
    }

    private static String read(Path stat) {
        try {
            return Files.readString(stat);
        } catch (IOException | RuntimeException gone) { // the process or thread ended between listing and reading
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
