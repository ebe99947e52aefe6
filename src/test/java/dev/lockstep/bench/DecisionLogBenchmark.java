package dev.lockstep.bench;

import dev.lockstep.bench.ServiceUnderTest.Deployment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Issue 31's decision-log figure (docs/performance.md, "Decision log: file against database"): the XA service with its
 * coordinator log in a file and with it in the business database's table, at each client level. Both services run
 * side by side for the whole benchmark and take turns, the order reversed every round, so drift on this noisy machine
 * falls on both. At the edges of
 * each measured window it reads, besides the cycles: the log's durable writes (its own counter, forces of the file or
 * commits of the table), the decision timer (the time a committing thread waits for its record to be durable), and
 * each PostgreSQL server's WAL fsyncs and commits (pg_stat_io, pg_stat_database).
 */
final class DecisionLogBenchmark {

    static final List<String> STORES = List.of("file", "database");
    private static final Pattern DURABLE_WRITES = Pattern.compile(
            "^lockstep_tm_log_durable_writes_total\\{[^}]*\\} (\\S+)$", Pattern.MULTILINE);

    /** One store at one client level in one round, its counters already divided by the window's cycles. */
    record Window(String store, int clients, int round, double seconds, long cycles, double logWritesPerCycle,
            double decisionsPerCycle, double decisionMeanMillis, Map<String, Double> walFsyncsPerCycle,
            Map<String, Double> commitsPerCycle) {

        double cyclesPerSecond() {
            return cycles / seconds;
        }
    }

    record Result(List<Window> windows) {

        /** The database log's cycles over the file log's at {@code clients}, every round's cycles and time pooled. */
        double databaseOverFile(int clients) {
            return rate("database", clients) / rate("file", clients);
        }

        double rate(String store, int clients) {
            List<Window> mine = of(store, clients);
            return mine.stream().mapToLong(Window::cycles).sum() / mine.stream().mapToDouble(Window::seconds).sum();
        }

        /** A per-cycle figure of {@code store} at {@code clients}, weighted by each window's cycles. */
        double perCycle(String store, int clients, ToDoubleFunction<Window> figure) {
            List<Window> mine = of(store, clients);
            long cycles = mine.stream().mapToLong(Window::cycles).sum();
            return mine.stream().mapToDouble(window -> figure.applyAsDouble(window) * window.cycles()).sum() / Math.max(1, cycles);
        }

        List<Window> of(String store, int clients) {
            return windows.stream().filter(window -> window.store().equals(store) && window.clients() == clients).toList();
        }
    }

    private DecisionLogBenchmark() {
    }

    /**
     * Both services run for the whole benchmark (started one at a time), so no window measures a JIT still compiling:
     * each service's first window gets the full warm-up, later ones a third of it. Each round measures both stores at
     * every level, the order of the stores reversed from one round to the next.
     */
    static Result run(BenchmarkSettings settings, List<Integer> clientLevels, int rounds) throws Exception {
        Map<String, ServiceUnderTest> services = new LinkedHashMap<>();
        List<Window> windows = new ArrayList<>();
        try {
            for (String store : STORES) {
                ServiceUnderTest service = ServiceUnderTest.start(Deployment.XA, "decision-log-" + store, settings,
                        List.of("--lockstep.tm.log=" + store));
                services.put(store, service);
                for (String url : service.jdbcUrls.values()) {
                    WalStatistics.enableTiming(url);
                }
            }
            List<String> order = new ArrayList<>(STORES);
            for (int round = 1; round <= rounds; round++) {
                for (String store : order) {
                    for (int clients : clientLevels) {
                        windows.add(window(services.get(store), store, clients, round,
                                round == 1 && clients == clientLevels.get(0) ? settings.warmup() : settings.warmup().dividedBy(3),
                                settings));
                    }
                }
                Collections.reverse(order);
            }
        } finally {
            services.values().forEach(ServiceUnderTest::close);
        }
        return new Result(windows);
    }

    private static Window window(ServiceUnderTest service, String store, int clients, int round, Duration warmup,
            BenchmarkSettings settings) throws Exception {
        List<Edge> edges = new ArrayList<>();
        LoadRun.Result run = LoadRun.run(service.baseUrl(), clients, warmup, settings.measure(),
                () -> edges.add(Edge.read(service)), () -> edges.add(Edge.read(service)));
        Edge before = edges.get(0);
        Edge after = edges.get(1);
        long cycles = Math.max(1, run.cycles());
        XaPhaseStatistics.PhaseTiming decisions = after.phases().minus(before.phases()).timings(cycles).get("decision log");
        Map<String, Double> fsyncs = new LinkedHashMap<>();
        Map<String, Double> commits = new LinkedHashMap<>();
        after.wal().forEach((database, stats) -> {
            WalStatistics delta = stats.minus(before.wal().get(database));
            fsyncs.put(database, (double) delta.fsyncs() / cycles);
            commits.put(database, (double) delta.commits() / cycles);
        });
        return new Window(store, clients, round, run.seconds(), run.cycles(),
                (after.logWrites() - before.logWrites()) / cycles,
                decisions == null ? 0 : decisions.perCycle(), decisions == null ? Double.NaN : decisions.meanMillis(),
                fsyncs, commits);
    }

    /** The service's counters at one edge of a window. */
    private record Edge(double logWrites, XaPhaseStatistics phases, Map<String, WalStatistics> wal) {

        static Edge read(ServiceUnderTest service) throws Exception {
            String prometheus = service.prometheus();
            Matcher writes = DURABLE_WRITES.matcher(prometheus);
            if (!writes.find()) {
                throw new IllegalStateException("the service exposes no lockstep_tm_log_durable_writes_total");
            }
            Map<String, WalStatistics> wal = new LinkedHashMap<>();
            for (Map.Entry<String, String> database : service.jdbcUrls.entrySet()) {
                wal.put(database.getKey(), WalStatistics.read(database.getValue()));
            }
            return new Edge(Double.parseDouble(writes.group(1)), XaPhaseStatistics.parse(prometheus), wal);
        }
    }

    static String markdown(Result result, List<Integer> clientLevels) {
        StringBuilder rows = new StringBuilder();
        for (int clients : clientLevels) {
            for (String store : STORES) {
                rows.append(String.format(Locale.ROOT, "| %d | %s | %.1f | %.2f | %.2f | %.2f ms | %.2f | %.2f | %.2f |%n",
                        clients, store, result.rate(store, clients),
                        result.perCycle(store, clients, Window::logWritesPerCycle),
                        result.perCycle(store, clients, Window::decisionsPerCycle),
                        result.perCycle(store, clients, Window::decisionMeanMillis),
                        result.perCycle(store, clients, window -> window.walFsyncsPerCycle().getOrDefault("lockstep_business", 0.0)),
                        result.perCycle(store, clients, window -> window.walFsyncsPerCycle().getOrDefault("lockstep_workflow", 0.0)),
                        result.perCycle(store, clients, window -> window.commitsPerCycle().getOrDefault("lockstep_business", 0.0))));
            }
        }
        StringBuilder ratios = new StringBuilder();
        for (int clients : clientLevels) {
            ratios.append(String.format(Locale.ROOT, "%s%d client%s: %.3f", ratios.isEmpty() ? "" : "; ", clients,
                    clients == 1 ? "" : "s", result.databaseOverFile(clients)));
        }
        long rounds = result.windows().stream().mapToInt(Window::round).distinct().count();
        return String.format(Locale.ROOT, """
                ## Decision log: file against database

                One XA service per store, both running throughout (%d rounds, the stores taking turns, file first in odd \
                rounds), the same approval cycle as the XA benchmark. Database over file, cycles per second: %s (target: at least 0.90 at 16 clients).

                | clients | log | cycles/s | log durable writes / cycle | decisions / cycle | decision wait (mean) \
                | WAL fsyncs / cycle, business | WAL fsyncs / cycle, workflow | commits / cycle, business |
                |---:|---|---:|---:|---:|---:|---:|---:|---:|
                %s
                Log durable writes: forces of the log file, or commits of `tm_coordinator_log` \
                (`lockstep_tm_log_durable_writes_total`); each covers every decision queued by then (group commit). With the \
                database log these commits are among the business server's WAL fsyncs and commits.
                """, rounds, ratios, rows);
    }
}
