package dev.lockstep.chaos.report;

import dev.lockstep.chaos.support.ServiceProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * Writes {@code index.html} and {@code report.json} into the report directory after every
 * scenario, so a suite that dies half-way still leaves the evidence of what ran.
 *
 * <p>The suite runs in several failsafe JVMs at once ({@code chaos.forks}), each with its own databases and
 * service. Each JVM keeps its own scenarios in {@code forks/<run>-<pid>.json}; every write merges the files
 * of the same Maven run ({@code chaos.runId}) under a file lock into the one report, so the report always
 * holds every scenario that finished in any JVM.
 */
public final class ComplianceReport implements TestWatcher {

    private static final JsonMapper JSON = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

    private final Path directory;
    private final String runId = System.getProperty("chaos.runId", "run-" + ProcessHandle.current().pid());
    private final Path ownPart;
    private final Map<String, String> versions = new LinkedHashMap<>();
    private final Map<Integer, ScenarioRecord> scenarios = new TreeMap<>();
    private final String startedAt = ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ISO_OFFSET_DATE_TIME);
    private ScenarioRecord current;
    private long currentStart;

    private static final Map<Path, ComplianceReport> SHARED = new java.util.concurrent.ConcurrentHashMap<>();

    private ComplianceReport(Path directory) {
        this.directory = directory;
        this.ownPart = directory.resolve("forks").resolve(runId + "-" + ProcessHandle.current().pid() + ".json");
    }

    /** One report per directory for the whole suite: every chaos test class adds its scenarios to it. */
    public static ComplianceReport shared(Path directory) {
        return SHARED.computeIfAbsent(directory.toAbsolutePath().normalize(), ComplianceReport::new);
    }

    /** Versions of the parts under test, read from the service jar itself and from git. */
    public void describe(Path serviceJar, String postgresVersion) {
        versions.put("PostgreSQL", postgresVersion);
        try (ZipFile jar = new ZipFile(serviceJar.toFile())) {
            List<String> libs = jar.stream().map(e -> e.getName()).filter(n -> n.startsWith("BOOT-INF/lib/")).toList();
            versions.put("pgjdbc", libVersion(libs, "postgresql-"));
            versions.put("Atomikos", libVersion(libs, "transactions-jta-"));
            versions.put("Activiti", libVersion(libs, "activiti-engine-"));
            versions.put("Spring Boot", libVersion(libs, "spring-boot-4").isEmpty() ? libVersion(libs, "spring-boot-")
                    : libVersion(libs, "spring-boot-4"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        versions.put("Java (service JVM)", System.getProperty("java.version"));
        versions.put("Coordinator log (lockstep.tm.log)", ServiceProcess.TM_LOG);
        versions.put("Lockstep git commit", git("rev-parse", "HEAD") + (git("status", "--porcelain").isBlank() ? "" : " (with uncommitted changes)"));
        versions.put("Service jar", serviceJar.getFileName().toString());
    }

    private static String libVersion(List<String> libs, String prefix) {
        return libs.stream().map(n -> n.substring("BOOT-INF/lib/".length()))
                .filter(n -> n.startsWith(prefix) && Character.isDigit(n.charAt(prefix.length())))
                .map(n -> n.substring(prefix.length(), n.length() - ".jar".length()))
                .findFirst().orElse("");
    }

    private static String git(String... args) {
        List<String> cmd = new ArrayList<>(List.of("git"));
        cmd.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).trim();
            p.waitFor(10, TimeUnit.SECONDS);
            return p.exitValue() == 0 ? out : "unknown (" + out + ")";
        } catch (IOException | InterruptedException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }

    public ScenarioRecord begin(int number, String title, String faultPoint, String injection, String expectedOutcome) {
        current = new ScenarioRecord(number, title, faultPoint, injection, expectedOutcome);
        currentStart = System.currentTimeMillis();
        scenarios.put(number, current);
        progress("scenario " + number + ": " + title + " ...");
        return current;
    }

    @Override
    public void testSuccessful(ExtensionContext context) {
        finish("PASS", null);
    }

    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
        finish("FAIL", String.valueOf(cause));
    }

    @Override
    public void testAborted(ExtensionContext context, Throwable cause) {
        finish("SKIPPED", String.valueOf(cause));
    }

    private void finish(String result, String failure) {
        if (current == null) {
            return;
        }
        current.result = result;
        current.failure = failure;
        if ("SKIPPED".equals(result) && current.observedOutcome.isEmpty()) {
            current.observedOutcome = "not run: " + failure.replaceFirst("^.*Assumption failed: ", "");
        }
        current.durationMillis = System.currentTimeMillis() - currentStart;
        progress("scenario " + current.number + ": " + result + " in " + current.durationMillis / 1000 + " s"
                + (failure == null ? "" : " - " + failure));
        current = null;
        write();
    }

    /** Progress for whoever watches the build (CI prints it as it comes). */
    public static void progress(String line) {
        System.out.println("[chaos " + java.time.LocalTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("HH:mm:ss")) + "] " + line);
    }

    /** This JVM's part, then the merged report of every JVM of the run, written while holding the report's lock. */
    private synchronized void write() {
        try {
            Files.createDirectories(ownPart.getParent());
            Part own = new Part(startedAt, versions, List.copyOf(scenarios.values()));
            Files.writeString(ownPart, JSON.writeValueAsString(own));
            try (FileChannel lock = FileChannel.open(directory.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                    FileLock held = lock.lock()) {
                Merged merged = mergeParts(own);
                Map<String, Object> json = new LinkedHashMap<>();
                json.put("title", "Lockstep two-phase commit compliance report");
                json.put("generatedAt", ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
                json.put("suiteStartedAt", merged.startedAt());
                json.put("versions", merged.versions());
                json.put("summary", Map.of("passed", merged.count("PASS"), "failed", merged.count("FAIL"), "skipped", merged.count("SKIPPED")));
                json.put("scenarios", merged.scenarios().values());
                Files.writeString(directory.resolve("report.json"), JSON.writeValueAsString(json));
                Files.writeString(directory.resolve("index.html"), html(merged));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** What one JVM has run so far, as stored in its part file. */
    record Part(String startedAt, Map<String, String> versions, List<ScenarioRecord> scenarios) {
    }

    /** Every JVM's scenarios of this run, by number; the earliest start; the versions any JVM read. */
    record Merged(String startedAt, Map<String, String> versions, Map<Integer, ScenarioRecord> scenarios) {

        long count(String result) {
            return scenarios.values().stream().filter(s -> s.result.equals(result)).count();
        }
    }

    /** This JVM's part and the others of this run, read from their files; parts of earlier runs (a build without {@code clean}) are deleted. */
    private Merged mergeParts(Part own) throws IOException {
        Map<Integer, ScenarioRecord> all = new TreeMap<>();
        Map<String, String> allVersions = new LinkedHashMap<>();
        String earliest = startedAt;
        try (Stream<Path> parts = Files.list(ownPart.getParent())) {
            for (Path file : parts.sorted().toList()) {
                if (!file.getFileName().toString().startsWith(runId + "-")) {
                    Files.deleteIfExists(file);
                    continue;
                }
                Part part = file.equals(ownPart) ? own : JSON.readValue(file.toFile(), Part.class);
                part.scenarios().forEach(s -> all.put(s.number, s));
                allVersions.putAll(part.versions());
                earliest = part.startedAt().compareTo(earliest) < 0 ? part.startedAt() : earliest;
            }
        }
        return new Merged(earliest, allVersions, all);
    }

    private static String html(Merged merged) {
        StringBuilder h = new StringBuilder();
        h.append("""
                <!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
                <title>Lockstep 2PC compliance report</title>
                <style>
                body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:1100px;color:#1d2329;line-height:1.45}
                h1{font-size:1.6rem;margin-bottom:.2rem} h2{font-size:1.2rem;margin-top:2.2rem;border-bottom:1px solid #d0d7de;padding-bottom:.3rem}
                table{border-collapse:collapse;width:100%;margin:.6rem 0;font-size:.92rem}
                th,td{border:1px solid #d0d7de;padding:.35rem .55rem;text-align:left;vertical-align:top}
                th{background:#f3f5f7;font-weight:600} td.k{width:15rem;background:#fafbfc;font-weight:600}
                .PASS{background:#dafbe1;color:#116329;font-weight:700} .FAIL{background:#ffebe9;color:#a40e26;font-weight:700}
                .SKIPPED,.NOTRUN{background:#fff8c5;color:#7d4e00;font-weight:700}
                pre{margin:0;white-space:pre-wrap;word-break:break-all;font-size:.82rem}
                .meta td{border:none;padding:.1rem .8rem .1rem 0} .muted{color:#57606a}
                table.rows{margin:0;font-size:.82rem} table.rows td,table.rows th{padding:.2rem .4rem;word-break:break-word} table.rows td:first-child{width:14rem}
                </style></head><body>
                <h1>Lockstep two-phase commit compliance report</h1>
                """);
        h.append("<p class=\"muted\">Crash and fault injection at each point of the XA two-phase commit between the business"
                + " database and the workflow database. Each scenario runs the built service as a separate JVM against two"
                + " PostgreSQL servers run as separate processes, breaks it at one point, restarts what was broken and then"
                + " reads both databases with plain SQL.</p>");
        h.append("<table class=\"meta\">");
        h.append(row("Report generated", esc(ZonedDateTime.now(ZoneOffset.UTC).withNano(0).format(DateTimeFormatter.ISO_OFFSET_DATE_TIME))));
        merged.versions().forEach((k, v) -> h.append(row(esc(k), esc(v))));
        h.append(row("Result", merged.count("PASS") + " passed, " + merged.count("FAIL") + " failed, " + merged.count("SKIPPED") + " skipped"));
        h.append("</table>");

        h.append(whatXaBuys(merged));
        h.append("<h2>Summary</h2><table><tr><th>#</th><th>Use case</th><th>Scenario</th><th>Expected outcome</th><th>Observed</th>"
                + "<th>Time to recovery</th><th>Result</th></tr>");
        for (ScenarioRecord s : merged.scenarios().values()) {
            h.append("<tr><td>").append(s.number).append("</td><td>").append(esc(s.useCase)).append("</td><td><a href=\"#s")
                    .append(s.number).append("\">")
                    .append(esc(s.title)).append("</a></td><td>").append(esc(s.expectedOutcome)).append("</td><td>")
                    .append(esc(s.observedOutcome)).append("</td><td>").append(recovery(s)).append("</td><td class=\"")
                    .append(s.result.replace(" ", "")).append("\">").append(s.result).append("</td></tr>");
        }
        h.append("</table>");

        for (ScenarioRecord s : merged.scenarios().values()) {
            h.append("<h2 id=\"s").append(s.number).append("\">").append(s.number).append(". ").append(esc(s.title)).append("</h2><table>");
            h.append(row("Result", "<span class=\"" + s.result.replace(" ", "") + "\">&nbsp;" + s.result + "&nbsp;</span>"
                    + (s.failure == null ? "" : "<pre>" + esc(s.failure) + "</pre>")));
            h.append(row("Use case", esc(s.useCase)));
            h.append(row("Halt point", s.haltPoint == null ? "<span class=\"muted\">not a halt</span>" : esc(s.haltPoint)));
            h.append(row("Transaction mode", "LOCAL".equals(s.transactionMode)
                    ? "LOCAL: negative control, two local commits" + (s.xaTwin == null ? "" : "; the same crash under XA is scenario " + s.xaTwin)
                    : esc(s.transactionMode)));
            h.append(row("Fault point", esc(s.faultPoint)));
            h.append(row("How it is injected", esc(s.injection)));
            h.append(row("Fault fired (evidence)", s.faultFired.isEmpty() ? "<span class=\"muted\">not recorded</span>"
                    : "<pre>" + esc(s.faultFired) + "</pre>"));
            h.append(row("Expected outcome", esc(s.expectedOutcome)));
            h.append(row("Observed outcome", esc(s.observedOutcome)));
            h.append(row("Client's answer", "<pre>" + esc(s.clientAnswer) + "</pre>"));
            h.append(row("Rows in both databases", rows(s)));
            h.append(row("Prepared transactions after the fault", list(s.preparedAfterFault)));
            h.append(row("Pending coordinator (Atomikos) log records after the fault", list(s.coordinatorLogAfterFault)));
            h.append(row("Prepared transactions after recovery", list(s.preparedAfterRecovery)));
            h.append(row("Time to recovery", recovery(s)));
            h.append(row("Cross-database invariants", s.invariantViolations.isEmpty() ? "all hold" : list(s.invariantViolations)));
            if (!s.notes.isEmpty()) {
                h.append(row("Notes", list(s.notes)));
            }
            h.append(row("Scenario duration", String.format("%.1f s", s.durationMillis / 1000.0)));
            h.append("</table>");
        }
        h.append("<p class=\"muted\">Machine-readable: <a href=\"report.json\">report.json</a>; JUnit XML in <code>junit/</code>."
                + " How to rerun: <code>mvn -Pchaos verify</code> (see docs/compliance.md).</p></body></html>\n");
        return h.toString();
    }

    /** Each negative control (LOCAL) beside the same crash under XA: the table a reviewer asks for first. */
    private static String whatXaBuys(Merged merged) {
        List<ScenarioRecord> controls = merged.scenarios().values().stream().filter(s -> "LOCAL".equals(s.transactionMode)).toList();
        if (controls.isEmpty()) {
            return "";
        }
        StringBuilder t = new StringBuilder("<h2>What XA buys: the same crash without it</h2><p class=\"muted\">Negative controls: the"
                + " service committed the two databases as two local transactions, one after the other"
                + " (lockstep.tm.transaction-mode=LOCAL, test-only), and was halted between them. Beside each, the same crash"
                + " under two-phase commit.</p><table><tr><th>Use case</th><th>Without XA (scenario)</th><th>With XA (scenario)</th></tr>");
        for (ScenarioRecord control : controls) {
            ScenarioRecord twin = control.xaTwin == null ? null : merged.scenarios().get(control.xaTwin);
            String without = Boolean.TRUE.equals(control.diverged)
                    ? "split" + (control.foundByRule == null ? ", named by no reconciliation rule" : ", found by rule " + control.foundByRule)
                    : Boolean.FALSE.equals(control.diverged) ? "consistent (the control showed nothing)" : "not judged";
            String with = twin == null ? "not run in this report" + (control.xaTwin == null ? "" : " (scenario " + control.xaTwin + ")")
                    : ("PASS".equals(twin.result) && Boolean.FALSE.equals(twin.diverged) ? "consistent" : twin.result) + " (<a href=\"#s"
                            + twin.number + "\">" + twin.number + "</a>)";
            t.append("<tr><td>").append(esc(control.useCase)).append("</td><td class=\"").append(control.result.replace(" ", ""))
                    .append("\">").append(esc(without)).append(" (<a href=\"#s").append(control.number).append("\">")
                    .append(control.number).append("</a>)</td><td>").append(with).append("</td></tr>");
        }
        return t.append("</table>").toString();
    }

    private static String recovery(ScenarioRecord s) {
        return s.timeToRecoveryMillis == null ? "n/a" : String.format("%.1f s", s.timeToRecoveryMillis / 1000.0);
    }

    private static String row(String key, String valueHtml) {
        return "<tr><td class=\"k\">" + key + "</td><td>" + valueHtml + "</td></tr>";
    }

    /** One line per fact, one column per moment: before the fault, after it, after recovery. */
    private static String rows(ScenarioRecord s) {
        java.util.LinkedHashSet<String> keys = new java.util.LinkedHashSet<>(s.rowsBefore.keySet());
        keys.addAll(s.rowsAfterFault.keySet());
        keys.addAll(s.rowsAfterRecovery.keySet());
        if (keys.isEmpty()) {
            return "<span class=\"muted\">not captured</span>";
        }
        StringBuilder t = new StringBuilder("<table class=\"rows\"><tr><th></th><th>before the fault</th>"
                + "<th>after the fault, before recovery</th><th>after recovery</th></tr>");
        for (String key : keys) {
            t.append("<tr><td>").append(esc(key)).append("</td>");
            for (Map<String, Object> moment : List.of(s.rowsBefore, s.rowsAfterFault, s.rowsAfterRecovery)) {
                Object value = moment.get(key);
                t.append("<td>").append(value == null ? "<span class=\"muted\">-</span>" : esc(String.valueOf(value))).append("</td>");
            }
            t.append("</tr>");
        }
        return t.append("</table>").toString();
    }

    private static String list(Collection<String> lines) {
        if (lines.isEmpty()) {
            return "none";
        }
        return "<pre>" + esc(String.join("\n", lines)) + "</pre>";
    }

    private static String esc(String s) {
        return Optional.ofNullable(s).orElse("").replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
