package dev.lockstep.bench;

import dev.lockstep.bench.Benchmark.OperationLatency;
import java.util.Locale;
import java.util.Map;

/**
 * The stages that run after the XA/single comparison, each on its own freshly started XA service:
 * todo and done pages at scale, then recovery time. Their results are added to the report.json and
 * summary.md the comparison wrote ({@code todoScale} and {@code recovery}).
 */
final class ScaleAndRecoveryStages {

    record Result(TodoScaleBenchmark.Result todoScale, RecoveryTimeBenchmark.Result recovery) {
    }

    private ScaleAndRecoveryStages() {
    }

    static Result run(BenchmarkSettings settings, TodoScaleBenchmark.Sizes todoSizes, RecoveryTimeBenchmark.Sizes recoverySizes)
            throws Exception {
        Result result = new Result(TodoScaleBenchmark.run(settings, todoSizes), RecoveryTimeBenchmark.run(settings, recoverySizes));
        ReportFiles.append(settings.outputDir(), Map.of("todoScale", result.todoScale(), "recovery", result.recovery()),
                markdown(result));
        return result;
    }

    static String markdown(Result result) {
        StringBuilder md = new StringBuilder();
        TodoScaleBenchmark.Result todo = result.todoScale();
        TodoScaleBenchmark.Sizes sizes = todo.sizes();
        md.append(format("## Todo and done pages at scale%n%nSeeded %,d open and %,d completed tasks over %,d users and %d groups"
                + " (%,d applications; task_projection %s) in %.1f s. Callers: the demo approvers over HTTP, page of 20;"
                + " deep page = page %s.%n%n", sizes.openTasks(), sizes.historicTasks(), sizes.users(), sizes.groups(),
                todo.applications(), todo.tableSize(), todo.seedSeconds(), todo.deepPageReached()));
        md.append("| page | indexes | requests | p50 ms | p95 ms | p99 ms | max ms |\n|---|---|---:|---:|---:|---:|---:|\n");
        for (TodoScaleBenchmark.Page page : TodoScaleBenchmark.Page.values()) {
            latencyRow(md, page, "primary key only", todo.withoutIndexes().pages().get(page));
            latencyRow(md, page, "migrations' indexes", todo.withIndexes().pages().get(page));
        }
        TodoScaleBenchmark.ConcurrentPass concurrent = todo.concurrent();
        for (TodoScaleBenchmark.Page page : TodoScaleBenchmark.Page.values()) {
            latencyRow(md, page, "migrations' indexes, " + concurrent.readers() + " readers at once", concurrent.pages().get(page));
        }
        BenchmarkSummary.profile(md, "todo and done pages, one request at a time", todo.withIndexes().profile());
        BenchmarkSummary.profile(md, "todo and done pages, " + concurrent.readers() + " readers at once", concurrent.profile());
        md.append(format("%nIndex scans by the served queries (pg_stat_user_indexes) without / with indexes: %s / %s%n",
                todo.withoutIndexes().indexScans(), todo.withIndexes().indexScans()));
        for (TodoScaleBenchmark.Page page : TodoScaleBenchmark.Page.values()) {
            md.append(format("%n<details><summary>EXPLAIN (ANALYZE, BUFFERS) %s, with indexes</summary>%n%n```%n%s```%n</details>%n",
                    page.name().toLowerCase(), todo.withIndexes().explain().get(page)));
        }

        RecoveryTimeBenchmark.Result recovery = result.recovery();
        md.append(format("%n## Recovery time%n%n%d transactions held prepared (%d before, %d after the COMMITTING record),"
                + " then the JVM halted; pg_prepared_xacts at halt: business %d, workflow %d.%n%n", recovery.transactions(),
                recovery.heldBeforeDecision(), recovery.heldAfterDecision(), recovery.preparedBusinessAtHalt(),
                recovery.preparedWorkflowAtHalt()));
        md.append(format("Restarted with lockstep.tm.max-timeout=%d s, after which Atomikos presumes abort for an undecided"
                + " branch it has seen.%n%n", recovery.maxTimeoutSeconds()));
        md.append("| restart to health UP | restart to logged decisions replayed | restart to no prepared transaction left"
                + " | committed on both | rolled back on both | inconsistent | invariant violations |\n"
                + "|---:|---:|---:|---:|---:|---:|---:|\n");
        md.append(format("| %.1f s | %.1f s | %.1f s | %d | %d | %d | %d |%n", recovery.secondsToHealthy(),
                recovery.secondsToDecidedResolved(), recovery.secondsToNoPrepared(),
                recovery.committedOnBoth(), recovery.abortedOnBoth(), recovery.inconsistent().size(),
                recovery.invariantViolations().size()));
        if (!recovery.answeredSubmits().isEmpty()) {
            md.append(format("%n%d submits answered instead of being held (replaced by new ones, checked for consistency too): %s%n",
                    recovery.answeredSubmits().size(), recovery.answeredSubmits()));
        }
        return md.toString();
    }

    private static void latencyRow(StringBuilder md, TodoScaleBenchmark.Page page, String indexes, OperationLatency latency) {
        md.append(format("| %s | %s | %d | %.1f | %.1f | %.1f | %.1f |%n", page.name().toLowerCase(), indexes, latency.count(),
                latency.p50Millis(), latency.p95Millis(), latency.p99Millis(), latency.maxMillis()));
    }

    private static String format(String pattern, Object... arguments) {
        return String.format(Locale.ROOT, pattern, arguments);
    }
}
