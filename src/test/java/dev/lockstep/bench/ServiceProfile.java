package dev.lockstep.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * A JFR recording (built into the JDK) of the service JVM over one measured window, started and stopped with
 * {@code jcmd} (settings {@code profile}) and summed up as where the time went:
 * <ul>
 * <li>by CPU: {@code jdk.ExecutionSample} of every thread (a thread on the CPU);
 * <li>by wall time on the request threads: their execution samples plus their
 * {@code jdk.NativeMethodSample}s (a thread waiting in a socket read for PostgreSQL is in native code, off the CPU),
 * each weighted by its event's sampling period, so that both count in milliseconds.
 * </ul>
 * Each is grouped twice: by the first frame outside the JDK (which library or Lockstep method runs or waits) and by
 * the first Lockstep frame (which step of the use case it serves). The recording stays next to the report for
 * {@code jfr print} or JDK Mission Control. Levels: {@code -Dbench.profile-clients=1,16} (the default), {@code none}
 * for no recording. JFR costs the service a little CPU in the windows it records, in both deployments alike.
 */
final class ServiceProfile {

    private static final int TOP = 10;
    /** Tomcat's request threads, {@code http-nio-<port>-exec-<n>} (not its acceptor and poller, which wait for sockets). */
    private static final Pattern REQUEST_THREAD = Pattern.compile("http-nio-\\d+-exec-\\d+");
    private static final List<String> JDK_PACKAGES = List.of("java.", "javax.", "jdk.", "sun.", "com.sun.");
    private static final String EXECUTION_SAMPLE = "jdk.ExecutionSample";
    /** The sampling periods of the JDK's {@code profile} settings (lib/jfr/profile.jfc). */
    private static final Map<String, Double> SAMPLE_PERIOD_MILLIS = Map.of(EXECUTION_SAMPLE, 10.0, "jdk.NativeMethodSample", 20.0);

    /** One group of samples: its frame, its share of the samples (CPU) or of the sampled time (wall), in percent. */
    record Frame(String frame, double percent) {
    }

    /**
     * {@code cpuSamples}: execution samples of all threads; {@code requestThreadMillis}: the sampled time of the request
     * threads, on the CPU and in native code.
     */
    record Summary(String recording, long cpuSamples, List<Frame> cpuByLibraryFrame, List<Frame> cpuByLockstepFrame,
            double requestThreadMillis, List<Frame> wallByLibraryFrame, List<Frame> wallByLockstepFrame) {
    }

    private final long pid;
    private final String name;
    private final Path file;

    private ServiceProfile(long pid, String name, Path file) {
        this.pid = pid;
        this.name = name;
        this.file = file;
    }

    static boolean wanted(int clients) {
        String levels = System.getProperty("bench.profile-clients", "1,16").trim();
        return !levels.equals("none") && Arrays.stream(levels.split(",")).map(String::trim).anyMatch(level -> level.equals(
                Integer.toString(clients)));
    }

    /** What {@code work} returned, with the recording of the service while it ran (null when not {@code wanted}). */
    record Recorded<T>(T value, Summary profile) {
    }

    /** Runs {@code work}, recording the JVM {@code pid} meanwhile into {@code file} when {@code wanted}. */
    static <T> Recorded<T> during(long pid, Path file, boolean wanted, Callable<T> work) throws Exception {
        if (!wanted) {
            return new Recorded<>(work.call(), null);
        }
        warmUp(pid);
        ServiceProfile recording = start(pid, file);
        T value = work.call();
        return new Recorded<>(value, recording.stop());
    }

    /**
     * A first recording makes the JVM load and start JFR itself, seconds of CPU on a loaded machine: a throwaway one
     * before the warm-up keeps that out of the measured window.
     */
    static void warmUp(long pid) throws IOException, InterruptedException {
        jcmd(pid, "JFR.start", "name=jfr-warm-up", "settings=profile");
        jcmd(pid, "JFR.stop", "name=jfr-warm-up");
    }

    /** Starts recording the JVM {@code pid}; {@link #stop()} writes {@code file} and sums it up. */
    static ServiceProfile start(long pid, Path file) throws IOException, InterruptedException {
        String name = file.getFileName().toString().replace(".jfr", "");
        jcmd(pid, "JFR.start", "name=" + name, "settings=profile");
        return new ServiceProfile(pid, name, file.toAbsolutePath());
    }

    Summary stop() throws IOException, InterruptedException {
        jcmd(pid, "JFR.stop", "name=" + name, "filename=" + file);
        return summarize(file);
    }

    static Summary summarize(Path file) throws IOException {
        List<RecordedEvent> cpu = new ArrayList<>();
        List<RecordedEvent> requests = new ArrayList<>();
        try (RecordingFile recording = new RecordingFile(file)) {
            while (recording.hasMoreEvents()) {
                RecordedEvent event = recording.readEvent();
                String type = event.getEventType().getName();
                if (type.equals(EXECUTION_SAMPLE)) {
                    cpu.add(event);
                }
                if (SAMPLE_PERIOD_MILLIS.containsKey(type) && REQUEST_THREAD.matcher(threadName(event)).matches()) {
                    requests.add(event);
                }
            }
        }
        Function<RecordedEvent, Double> sampledMillis = e -> SAMPLE_PERIOD_MILLIS.get(e.getEventType().getName());
        return new Summary(file.getFileName().toString(), cpu.size(), top(cpu, ServiceProfile::libraryFrame, e -> 1.0),
                top(cpu, ServiceProfile::lockstepFrame, e -> 1.0), requests.stream().mapToDouble(sampledMillis::apply).sum(),
                top(requests, ServiceProfile::libraryFrame, sampledMillis), top(requests, ServiceProfile::lockstepFrame, sampledMillis));
    }

    private static List<Frame> top(List<RecordedEvent> samples, Function<RecordedEvent, String> groupBy,
            Function<RecordedEvent, Double> weight) {
        Map<String, Double> sums = new HashMap<>();
        double total = 0;
        for (RecordedEvent sample : samples) {
            sums.merge(groupBy.apply(sample), weight.apply(sample), Double::sum);
            total += weight.apply(sample);
        }
        double all = total;
        return sums.entrySet().stream().sorted(Map.Entry.<String, Double>comparingByValue(Comparator.reverseOrder())).limit(TOP)
                .map(entry -> new Frame(entry.getKey(), Math.round(entry.getValue() * 1000 / all) / 10.0)).toList();
    }

    private static String libraryFrame(RecordedEvent sample) {
        return firstFrame(sample, type -> JDK_PACKAGES.stream().noneMatch(type::startsWith), "(JDK only)");
    }

    private static String lockstepFrame(RecordedEvent sample) {
        return firstFrame(sample, type -> type.startsWith("dev.lockstep."), "(no Lockstep frame)");
    }

    private static String firstFrame(RecordedEvent sample, Predicate<String> typeMatches, String none) {
        RecordedStackTrace stack = sample.getStackTrace();
        if (stack == null) {
            return "(no stack)";
        }
        for (RecordedFrame frame : stack.getFrames()) {
            String type = frame.getMethod().getType().getName();
            if (typeMatches.test(type)) {
                return type + "." + frame.getMethod().getName();
            }
        }
        return none;
    }

    private static String threadName(RecordedEvent sample) {
        var thread = sample.getThread("sampledThread");
        return thread == null || thread.getJavaName() == null ? "" : thread.getJavaName();
    }

    private static void jcmd(long pid, String... command) throws IOException, InterruptedException {
        Path java = Path.of(ProcessHandle.current().info().command().orElseThrow());
        List<String> arguments = new ArrayList<>(List.of(java.resolveSibling("jcmd").toString(), Long.toString(pid)));
        arguments.addAll(List.of(command));
        Process jcmd = new ProcessBuilder(arguments).redirectErrorStream(true).start();
        String output = new String(jcmd.getInputStream().readAllBytes());
        if (!jcmd.waitFor(60, TimeUnit.SECONDS) || jcmd.exitValue() != 0) {
            throw new IOException("jcmd " + String.join(" ", command) + " failed: " + output);
        }
    }
}
