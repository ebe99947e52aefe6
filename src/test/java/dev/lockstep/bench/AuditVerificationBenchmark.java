package dev.lockstep.bench;

import dev.lockstep.platform.audit.evidence.SyntheticBundle;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Issue 32: the offline verifier streams, so a bundle of 1,000,000 entries verifies in a small fixed heap. Writes a
 * synthetic bundle with the export's own writer, then runs {@code verify} in a JVM of its own with {@code -Xmx} of
 * {@code bench.audit.heap} (64m) and reports the peak heap the verifier measured, the GC log's and the wall time.
 */
final class AuditVerificationBenchmark {

    private static final Pattern PEAK = Pattern.compile("peak heap used by this JVM: (\\d+) MiB");
    /** A unified GC log line's heap after the collection: {@code 42M->5M(64M)}. */
    private static final Pattern AFTER_GC = Pattern.compile("->(\\d+)M\\(");

    private AuditVerificationBenchmark() {
    }

    record Result(long entries, long bundleBytes, String heapLimit, double writeSeconds, double verifySeconds, int exitCode,
            long peakHeapMiB, long maxHeapAfterGcMiB, String verifierOutput) {
    }

    static Result run(BenchmarkSettings settings, long entries, String heap) throws IOException, InterruptedException {
        Path directory = Files.createDirectories(settings.outputDir().resolve("audit-verification"));
        Path bundle = directory.resolve("synthetic-" + entries + ".zip");
        long start = System.nanoTime();
        String key = SyntheticBundle.write(bundle, entries, 10_000, directory.resolve("signing-key.pem"));
        double writeSeconds = (System.nanoTime() - start) / 1e9;

        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx" + heap, "-Xlog:gc:file=" + directory.resolve("verify-gc.log")));
        command.addAll(settings.launch());
        command.addAll(List.of("verify", bundle.toString(), "--key", key));
        start = System.nanoTime();
        Process verifier = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(verifier.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int exit = verifier.waitFor();
        double verifySeconds = (System.nanoTime() - start) / 1e9;
        Files.writeString(directory.resolve("verify-output.txt"), output);
        Matcher peak = PEAK.matcher(output);
        long afterGc = AFTER_GC.matcher(Files.readString(directory.resolve("verify-gc.log"))).results()
                .mapToLong(match -> Long.parseLong(match.group(1))).max().orElse(-1);
        return new Result(entries, Files.size(bundle), heap, writeSeconds, verifySeconds, exit,
                peak.find() ? Long.parseLong(peak.group(1)) : -1, afterGc, output);
    }

    static String markdown(Result result) {
        return """
                ## Offline verification of %,d entries

                | bundle (zip) | heap limit | verify wall time | peak heap (verifier's own report) | largest heap after a GC | exit code | writing the bundle |
                |---|---|---|---|---|---|---|
                | %,d MB | %s | %.1f s | %d MiB | %d MiB | %d | %.1f s |
                """.formatted(result.entries(), result.bundleBytes() / 1_000_000, result.heapLimit(), result.verifySeconds(),
                result.peakHeapMiB(), result.maxHeapAfterGcMiB(), result.exitCode(), result.writeSeconds());
    }
}
