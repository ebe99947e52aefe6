package dev.lockstep.bench;

import static dev.lockstep.bench.TodoScaleBenchmark.count;
import static dev.lockstep.bench.TodoScaleBenchmark.execute;
import static dev.lockstep.bench.TodoScaleBenchmark.strings;

import dev.lockstep.bench.ApprovalCycleClient.Operation;
import dev.lockstep.bench.Benchmark.OperationLatency;
import dev.lockstep.bench.TodoScaleBenchmark.Page;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.HdrHistogram.Histogram;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * History at scale (issue 16): the todo and done pages and the approval cycle of an XA service whose
 * engine history holds {@code historyRows} ACT_HI_* rows of processes that ended more than 180 days ago
 * ({@link EndedHistorySeed}), then the product's own history archival moving them out through its
 * admin endpoint, then the same measurements again. Before and after are measured in the same run on the
 * same service, so their ratio is the figure that counts on a noisy machine.
 */
final class HistoryArchivalBenchmark {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    static final String NOTHING_MORE_DUE = "nothing more is due";

    /**
     * {@code shippedSchemaFor}: archival first runs this long on the engine's schema as shipped, then the stage adds
     * indexes on ACT_HI_PROCINST.SUPER_PROCESS_INSTANCE_ID_ and ACT_HI_TASKINST.PARENT_TASK_ID_ (the engine's deletion
     * looks both up, per process and per task, and its schema has no index for them) and archival goes on: zero adds
     * them before archival starts, a value of at least {@code archivalLimit} never. {@code archivalLimit}: archival
     * stops after this long even if rows are left, and the report says how far it got.
     */
    record Sizes(long historyRows, int batchSize, int batchesPerCall, Duration archivalLimit, Duration shippedSchemaFor,
            int pageRequests, int pageWarmup, int deepPage, int clients, Duration cycleWarmup, Duration cycleMeasure) {

        /**
         * {@code bench.history.*} system properties. The defaults are the 10 million rows and the run in
         * docs/performance.md: 10 minutes on the shipped schema, then with the indexes, 100 minutes in all.
         */
        static Sizes fromSystemProperties() {
            Duration limit = Duration.ofMinutes(Long.getLong("bench.history.archival-limit-minutes", 100));
            return new Sizes(Long.getLong("bench.history.rows", 10_000_000L), Integer.getInteger("bench.history.batch-size", 50),
                    Integer.getInteger("bench.history.batches-per-call", 10), limit,
                    Duration.ofMinutes(Long.getLong("bench.history.shipped-schema-minutes", 10)),
                    Integer.getInteger("bench.history.page-requests", 200), Integer.getInteger("bench.history.page-warmup", 40),
                    Integer.getInteger("bench.history.deep-page", 25), Integer.getInteger("bench.history.clients", 4),
                    Duration.ofSeconds(Long.getLong("bench.history.cycle-warmup-seconds", 10)),
                    Duration.ofSeconds(Long.getLong("bench.history.cycle-measure-seconds", 30)));
        }
    }

    /** One pass of the pages and the cycle, with the history's size (plain SQL) when it started. */
    record Measurement(long historyRows, String workflowDatabaseSize, Map<Page, Integer> deepPageReached,
            Map<Page, OperationLatency> pages, Benchmark.DeploymentResult cycles) {
    }

    /** One call of the admin endpoint: what it moved and how long it took, for the rate's course over the run. */
    record Segment(long processes, long rows, double seconds) {

        double rowsPerSecond() {
            return rows / seconds;
        }
    }

    /** Archival on one schema: as shipped, or with the two engine indexes added. */
    record Leg(boolean engineIndexes, long processes, long rows, double seconds, OperationLatency batchMillis, long cutShortBatches,
            List<Segment> segments, String stoppedBecause) {

        double rowsPerSecond() {
            return rows / seconds;
        }

        double processesPerSecond() {
            return processes / seconds;
        }
    }

    /**
     * {@code historyRowsAtStart}: what the engine's history held before; {@code archivedRows}/{@code archivedProcesses}:
     * what the archive tables hold after, and {@code historyRowsLeft}/{@code dueProcessesLeft} what the history still
     * holds, all read with plain SQL.
     */
    record Archival(long historyRowsAtStart, List<Leg> legs, long archivedProcesses, long archivedRows, long historyRowsLeft,
            long dueProcessesLeft) {

        long processes() {
            return legs.stream().mapToLong(Leg::processes).sum();
        }

        long rows() {
            return legs.stream().mapToLong(Leg::rows).sum();
        }

        boolean finished() {
            return NOTHING_MORE_DUE.equals(legs.get(legs.size() - 1).stoppedBecause());
        }
    }

    /**
     * {@code control}: the same measurements of a second service without seeded history, started beside it and
     * measured right after (before archival) and right before it (after), so that the machine's drift between
     * the two phases shows in its own after/before ratio.
     */
    record Result(Sizes sizes, EndedHistorySeed.Result seed, Measurement before, Archival archival, Measurement after,
            Measurement controlBefore, Measurement controlAfter) {
    }

    private HistoryArchivalBenchmark() {
    }

    static Result run(BenchmarkSettings settings, Sizes sizes) throws Exception {
        Path home = settings.outputDir().resolve("var-history").toAbsolutePath();
        Path controlHome = settings.outputDir().resolve("var-history-control").toAbsolutePath();
        ServiceUnderTest.deleteRecursively(home);
        ServiceUnderTest.deleteRecursively(controlHome);
        // no scheduled run: the stage starts archival itself; no pause between batches: the rate is the batches' own
        CompletableFuture<ServiceUnderTest> starting = start(settings, home, "history-service.log",
                List.of("--lockstep.archival.enabled=false", "--lockstep.archival.pause-between-batches=0s",
                        "--lockstep.archival.batch-size=" + sizes.batchSize()));
        CompletableFuture<ServiceUnderTest> startingControl = start(settings, controlHome, "history-control-service.log",
                List.of("--lockstep.archival.enabled=false"));
        try (ServiceUnderTest service = starting.join(); ServiceUnderTest control = startingControl.join()) {
            EndedHistorySeed.Result seed = EndedHistorySeed.seed(service, sizes.historyRows());
            System.out.printf("history seed: %,d ACT_HI rows, %,d processes in %.0f s%n", seed.historyRows(), seed.processes(),
                    seed.seconds());
            checkpoint(service);
            Measurement before = measure(service, sizes);
            Measurement controlBefore = measure(control, sizes);
            Archival archival = archive(service, sizes);
            checkpoint(service);
            Measurement controlAfter = measure(control, sizes);
            Measurement after = measure(service, sizes);
            return new Result(sizes, seed, before, archival, after, controlBefore, controlAfter);
        } finally {
            starting.thenAccept(ServiceUnderTest::close);
            startingControl.thenAccept(ServiceUnderTest::close);
        }
    }

    private static CompletableFuture<ServiceUnderTest> start(BenchmarkSettings settings, Path home, String log,
            List<String> arguments) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return ServiceUnderTest.start(ServiceUnderTest.Deployment.XA, settings, home, log, List.of(), arguments);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    /** Writes out what a bulk load or archival left dirty, so that the next measurement does not pay for it. */
    private static void checkpoint(ServiceUnderTest service) throws SQLException {
        try (Connection workflow = workflow(service); Connection business = business(service)) {
            execute(workflow, "checkpoint");
            execute(business, "checkpoint");
        }
    }

    private static Measurement measure(ServiceUnderTest service, Sizes sizes) throws Exception {
        long historyRows;
        String size;
        try (Connection workflow = workflow(service)) {
            historyRows = EndedHistorySeed.historyRows(workflow);
            size = strings(workflow, "select pg_size_pretty(pg_database_size(current_database()))").get(0);
        }
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        Map<Page, Integer> reached = new EnumMap<>(Page.class);
        Map<Page, List<String>> cursors = TodoScaleBenchmark.deepCursors(http, service.baseUrl(), sizes.deepPage(), reached);
        Map<Page, OperationLatency> pages = TodoScaleBenchmark.timePages(http, service.baseUrl(), cursors, sizes.pageRequests(),
                sizes.pageWarmup());
        Benchmark.DeploymentResult cycles = Benchmark.measure(service, sizes.clients(), sizes.cycleWarmup(), sizes.cycleMeasure());
        return new Measurement(historyRows, size, reached, pages, cycles);
    }

    /** Archival on the shipped schema for {@code shippedSchemaFor}, then with the engine indexes, within the limit. */
    private static Archival archive(ServiceUnderTest service, Sizes sizes) throws Exception {
        long historyRowsAtStart;
        try (Connection workflow = workflow(service)) {
            historyRowsAtStart = EndedHistorySeed.historyRows(workflow);
        }
        List<Leg> legs = new ArrayList<>();
        long start = System.nanoTime();
        if (!sizes.shippedSchemaFor().isZero()) {
            legs.add(leg(service, sizes, false, Duration.ofNanos(Math.min(sizes.shippedSchemaFor().toNanos(),
                    sizes.archivalLimit().toNanos()))));
        }
        Duration left = sizes.archivalLimit().minusNanos(System.nanoTime() - start);
        boolean moreDue = legs.isEmpty() || legs.get(0).stoppedBecause().startsWith("the stage's limit");
        if (moreDue && !left.isNegative() && !left.isZero()) {
            try (Connection workflow = workflow(service)) {
                execute(workflow, "create index bench_hi_procinst_super on act_hi_procinst (super_process_instance_id_)");
                execute(workflow, "create index bench_hi_taskinst_parent on act_hi_taskinst (parent_task_id_)");
            }
            legs.add(leg(service, sizes, true, left));
        }
        try (Connection workflow = workflow(service); Connection business = business(service)) {
            return new Archival(historyRowsAtStart, legs, count(business, "select count(*) from archived_process"),
                    EndedHistorySeed.sumOfCounts(business, EndedHistorySeed.ARCHIVE_TABLES),
                    EndedHistorySeed.historyRows(workflow), EndedHistorySeed.dueProcesses(workflow));
        }
    }

    /** Calls the admin endpoint (as the demo admin erin) until nothing more is due or {@code limit} has passed. */
    private static Leg leg(ServiceUnderTest service, Sizes sizes, boolean engineIndexes, Duration limit) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        Histogram batchMicros = new Histogram(TimeUnit.HOURS.toMicros(1), 3);
        List<Segment> segments = new ArrayList<>();
        long processes = 0;
        long rows = 0;
        long cutShort = 0;
        String stoppedBecause;
        long start = System.nanoTime();
        while (true) {
            long callStart = System.nanoTime();
            JsonNode run = postRuns(http, service.baseUrl(), sizes.batchesPerCall());
            long callProcesses = 0;
            long callRows = 0;
            for (JsonNode batch : run.get("batches")) {
                batchMicros.recordValue(Math.min(batchMicros.getHighestTrackableValue(),
                        Math.max(1, TimeUnit.MILLISECONDS.toMicros(batch.get("millis").asLong()))));
                callProcesses += batch.get("processes").asLong();
                callRows += batch.get("rows").asLong();
                cutShort += batch.get("cutShort").asBoolean() ? 1 : 0;
            }
            segments.add(new Segment(callProcesses, callRows, (System.nanoTime() - callStart) / 1e9));
            processes += callProcesses;
            rows += callRows;
            stoppedBecause = run.get("stoppedBecause").asString();
            if (!stoppedBecause.equals("batch limit reached")) {
                break;
            }
            if (System.nanoTime() - start > limit.toNanos()) {
                stoppedBecause = "the stage's limit of " + limit.toSeconds() + " s passed";
                break;
            }
        }
        Leg leg = new Leg(engineIndexes, processes, rows, (System.nanoTime() - start) / 1e9, OperationLatency.of(batchMicros, 0),
                cutShort, segments, stoppedBecause);
        System.out.printf("history archival %s: %,d rows, %,d processes in %.0f s (%s)%n", engineIndexes ? "with engine indexes"
                : "on the shipped schema", leg.rows(), leg.processes(), leg.seconds(), stoppedBecause);
        return leg;
    }

    private static JsonNode postRuns(HttpClient http, String baseUrl, int batches) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(baseUrl + "/api/admin/history-archival/runs"))
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("erin:lockstep".getBytes(StandardCharsets.UTF_8)))
                .header("Content-Type", "application/json").header("Accept", "application/json")
                .timeout(Duration.ofHours(1)).POST(HttpRequest.BodyPublishers.ofString("{\"batches\": " + batches + "}")).build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException("POST /api/admin/history-archival/runs answered " + response.statusCode() + ": "
                    + response.body());
        }
        return JSON.readTree(response.body());
    }

    private static Connection workflow(ServiceUnderTest service) throws SQLException {
        return DriverManager.getConnection(service.jdbcUrls.get("lockstep_workflow"), "postgres", "");
    }

    private static Connection business(ServiceUnderTest service) throws SQLException {
        return DriverManager.getConnection(service.jdbcUrls.get("lockstep_business"), "postgres", "");
    }

    static String markdown(Result result) {
        StringBuilder md = new StringBuilder();
        Sizes sizes = result.sizes();
        EndedHistorySeed.Result seed = result.seed();
        md.append(format("## History at %,d ACT_HI_* rows, and archival%n%nSeeded by SQL: %,d copies of %d template processes"
                        + " (history rows per shape: %s) = %,d ACT_HI_* rows of %,d processes ended 181 days to 2.5 years ago,"
                        + " with %,d business rows, in %.0f s. Workflow database %s before archival.%n%n", seed.historyRows(),
                seed.copies(), seed.templateRows().size(), seed.templateRows(), seed.historyRows(), seed.processes(),
                seed.businessRows(), seed.seconds(), result.before().workflowDatabaseSize()));
        Archival archival = result.archival();
        md.append(format("Archival through the admin endpoint, batch %d, no pause between batches:%n%n", sizes.batchSize()));
        md.append("| engine schema | processes | rows | seconds | rows/s | processes/s | batches (cut short by the time limit)"
                + " | batch p50 / p99 / max ms | rows/s per tenth of the leg | stopped |\n"
                + "|---|---:|---:|---:|---:|---:|---|---|---|---|\n");
        for (Leg leg : archival.legs()) {
            md.append(format("| %s | %,d | %,d | %.0f | **%.0f** | %.1f | %,d (%,d) | %.0f / %.0f / %.0f | %s | %s |%n",
                    leg.engineIndexes() ? "+ 2 indexes" : "as shipped", leg.processes(), leg.rows(), leg.seconds(),
                    leg.rowsPerSecond(), leg.processesPerSecond(), leg.batchMillis().count(), leg.cutShortBatches(),
                    leg.batchMillis().p50Millis(), leg.batchMillis().p99Millis(), leg.batchMillis().maxMillis(),
                    tenths(leg.segments()), leg.stoppedBecause()));
        }
        md.append(format("%nRead with SQL afterwards: archive %,d processes / %,d rows; engine history %,d rows (of %,d),"
                        + " %,d processes still due.%n%n", archival.archivedProcesses(), archival.archivedRows(),
                archival.historyRowsLeft(), archival.historyRowsAtStart(), archival.dueProcessesLeft()));
        md.append(format("Before: %,d history rows; after: %,d. Pages one request at a time over HTTP (%d per page), cycles"
                        + " with %d clients (%d s measured). Control: a service without seeded history beside it, measured"
                        + " right after (before archival) and right before (after) it; corrected = after/before of the history"
                        + " service divided by after/before of the control, which takes out the machine's drift between the"
                        + " two phases.%n%n", result.before().historyRows(), result.after().historyRows(), sizes.pageRequests(),
                sizes.clients(), sizes.cycleMeasure().toSeconds()));
        md.append("| measured | before p50 / p99 ms | after p50 / p99 ms | after/before p50 / p99 | control after/before p50 / p99"
                + " | **corrected p50 / p99** |\n|---|---|---|---|---|---|\n");
        for (Page page : Page.values()) {
            row(md, page.name().toLowerCase(Locale.ROOT) + " page", result, measurement -> measurement.pages().get(page));
        }
        for (Operation operation : List.of(Operation.SUBMIT, Operation.APPROVE_MANAGER, Operation.APPROVE_FINAL, Operation.CYCLE)) {
            row(md, operation.name().toLowerCase(Locale.ROOT), result,
                    measurement -> measurement.cycles().operations().get(operation));
        }
        double ratio = result.after().cycles().cyclesPerSecond() / result.before().cycles().cyclesPerSecond();
        double controlRatio = result.controlAfter().cycles().cyclesPerSecond() / result.controlBefore().cycles().cyclesPerSecond();
        md.append(format("%nCycles/s: before %.2f, after %.2f (after/before %.2f; control %.2f → %.2f, %.2f; corrected %.2f).%n",
                result.before().cycles().cyclesPerSecond(), result.after().cycles().cyclesPerSecond(), ratio,
                result.controlBefore().cycles().cyclesPerSecond(), result.controlAfter().cycles().cyclesPerSecond(), controlRatio,
                ratio / controlRatio));
        return md.toString();
    }

    /** The rate of each tenth of the calls, to show whether it changes as the history shrinks. */
    private static List<Long> tenths(List<Segment> segments) {
        List<Long> rates = new ArrayList<>();
        int parts = Math.min(10, segments.size());
        for (int part = 0; part < parts; part++) {
            List<Segment> slice = segments.subList(part * segments.size() / parts, (part + 1) * segments.size() / parts);
            double rows = slice.stream().mapToLong(Segment::rows).sum();
            double seconds = slice.stream().mapToDouble(Segment::seconds).sum();
            rates.add(Math.round(rows / seconds));
        }
        return rates;
    }

    private static void row(StringBuilder md, String name, Result result, Function<Measurement, OperationLatency> latency) {
        OperationLatency before = latency.apply(result.before());
        OperationLatency after = latency.apply(result.after());
        OperationLatency controlBefore = latency.apply(result.controlBefore());
        OperationLatency controlAfter = latency.apply(result.controlAfter());
        double p50 = after.p50Millis() / before.p50Millis();
        double p99 = after.p99Millis() / before.p99Millis();
        double controlP50 = controlAfter.p50Millis() / controlBefore.p50Millis();
        double controlP99 = controlAfter.p99Millis() / controlBefore.p99Millis();
        md.append(format("| %s | %.1f / %.1f | %.1f / %.1f | %.2f / %.2f | %.2f / %.2f | **%.2f / %.2f** |%n", name,
                before.p50Millis(), before.p99Millis(), after.p50Millis(), after.p99Millis(), p50, p99, controlP50, controlP99,
                p50 / controlP50, p99 / controlP99));
    }

    private static String format(String pattern, Object... arguments) {
        return String.format(Locale.ROOT, pattern, arguments);
    }
}
