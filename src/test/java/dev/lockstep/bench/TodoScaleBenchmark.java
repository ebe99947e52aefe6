package dev.lockstep.bench;

import dev.lockstep.approval.todo.ServedTaskStatements;
import dev.lockstep.bench.Benchmark.OperationLatency;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Todo and done pages at scale (issue 5, item 4). Bulk-loads the business database's task_projection
 * of a freshly started XA service with {@code INSERT ... SELECT generate_series} (open and completed
 * tasks over many users and groups, plus the applications they reference), then measures the pages
 * over real HTTP twice: without the projection's secondary indexes ("before": primary key only) and with
 * every index its migrations define ("after"). The index definitions are read from the database
 * before they are dropped, so the benchmark always measures what the migrations create.
 *
 * <p>In the embedded deployment only the demo users can log in, so the HTTP callers are the four demo
 * approvers (bob, carol, dave, frank, one candidate group each); the seeded data treats them as four
 * of the {@code users} and their groups as four of the {@code groups}, with the same share of the
 * data as everybody else.
 */
final class TodoScaleBenchmark {

    enum Page { TODO_FIRST, TODO_DEEP, DONE_FIRST, DONE_DEEP }

    /**
     * {@code readers}: how many read the pages at once in the concurrent pass (with indexes), {@code concurrentRequests}
     * per page in all: long enough that the p99 is not the slowest few requests of a two-second window.
     */
    record Sizes(int openTasks, int historicTasks, int users, int groups, int requests, int requestsWithoutIndexes,
            int warmupRequests, int deepPage, int readers, int concurrentRequests) {

        /** {@code bench.todo.*} system properties; the defaults are the scale. */
        static Sizes fromSystemProperties() {
            return new Sizes(Integer.getInteger("bench.todo.open-tasks", 100_000),
                    Integer.getInteger("bench.todo.historic-tasks", 1_000_000), Integer.getInteger("bench.todo.users", 1_000),
                    Integer.getInteger("bench.todo.groups", 50), Integer.getInteger("bench.todo.requests", 500),
                    Integer.getInteger("bench.todo.requests-without-indexes", 20),
                    Integer.getInteger("bench.todo.warmup-requests", 1000), Integer.getInteger("bench.todo.deep-page", 25),
                    Integer.getInteger("bench.todo.readers", 16), Integer.getInteger("bench.todo.concurrent-requests", 10_000));
        }
    }

    /**
     * One measured pass over the four pages, one request at a time; {@code indexScans} counts what the served queries
     * used, per index; {@code profile} is the service's JFR summary over the pass (with indexes; null without).
     */
    record Pass(List<String> indexes, Map<Page, OperationLatency> pages, Map<String, Long> indexScans,
            Map<Page, String> explain, ServiceProfile.Summary profile) {
    }

    /**
     * The pages read by {@code readers} clients at once, with indexes, and the service's JFR summary of a further pass
     * like it (null when that level is not profiled).
     */
    record ConcurrentPass(int readers, Map<Page, OperationLatency> pages, ServiceProfile.Summary profile) {
    }

    record Result(Sizes sizes, double seedSeconds, long projectionRows, long applications, String tableSize,
            Map<Page, Integer> deepPageReached, Pass withoutIndexes, Pass withIndexes, ConcurrentPass concurrent) {
    }

    /** The demo approvers, who can log in over HTTP, and the candidate group each belongs to. */
    private static final List<String> CALLERS = List.of("bob", "carol", "dave", "frank");
    private static final List<String> CALLER_GROUPS = List.of("managers", "legal", "finance", "directors");
    /** The API's default page size, which the timed requests use. */
    private static final int PAGE_SIZE = 20;
    private static final long FIRST_SEEDED_APPLICATION = 1_000_000_000L;
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** The indexes the "before" pass drops: all but the primary keys of the projection and its offers table. */
    private static final String SECONDARY_INDEXES = "tablename in ('task_projection', 'task_offer')"
            + " and indexname not in ('task_projection_pkey', 'task_offer_pkey')";

    private TodoScaleBenchmark() {
    }

    static Result run(BenchmarkSettings settings, Sizes sizes) throws Exception {
        Path home = settings.outputDir().resolve("var-todo-scale").toAbsolutePath();
        ServiceUnderTest.deleteRecursively(home);
        try (ServiceUnderTest service = ServiceUnderTest.start(ServiceUnderTest.Deployment.XA, settings, home,
                "todo-scale-service.log", List.of(), List.of())) {
            String business = service.jdbcUrls.get("lockstep_business");
            try (Connection db = DriverManager.getConnection(business, "postgres", "")) {
                List<String> indexes = strings(db, "select indexdef from pg_indexes where " + SECONDARY_INDEXES + " order by indexname");
                for (String name : strings(db, "select indexname from pg_indexes where " + SECONDARY_INDEXES)) {
                    execute(db, "drop index " + name);
                }
                long seedStart = System.nanoTime();
                seed(db, sizes);
                double seedSeconds = (System.nanoTime() - seedStart) / 1e9;
                long rows = count(db, "select count(*) from task_projection");
                long applications = count(db, "select count(*) from application where id >= " + FIRST_SEEDED_APPLICATION);
                String size = strings(db, "select pg_size_pretty(pg_total_relation_size('task_projection'))").get(0);

                HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
                // JFR's first start makes the JIT compile again what reads sockets: before the warm-up, not in a pass
                ServiceProfile.warmUp(service.pid());
                Map<Page, Integer> reached = new EnumMap<>(Page.class);
                Map<Page, List<String>> cursors = deepCursors(http, service.baseUrl(), sizes.deepPage(), reached);
                Pass without = measure(db, http, service.baseUrl(), cursors, List.of(), sizes.requestsWithoutIndexes(),
                        CALLERS.size(), service.pid(), null);
                for (String index : indexes) {
                    execute(db, index);
                }
                execute(db, "analyze task_projection");
                execute(db, "analyze task_offer");
                Pass with = measure(db, http, service.baseUrl(), cursors, indexes, sizes.requests(), sizes.warmupRequests(),
                        service.pid(), settings.outputDir().resolve("todo-pages-1-reader.jfr"));
                timePagesConcurrently(http, service.baseUrl(), cursors, 4 * sizes.warmupRequests(), sizes.readers());
                Map<Page, OperationLatency> concurrent = timePagesConcurrently(http, service.baseUrl(), cursors,
                        sizes.concurrentRequests(), sizes.readers());
                // Recorded in a pass of its own: the pass a recording starts in has slow requests in its first seconds
                // that the same pass without it has far fewer of (docs/performance.md, "The todo pages at 16 readers").
                ServiceProfile.Summary profile = !ServiceProfile.wanted(sizes.readers()) ? null
                        : ServiceProfile.during(service.pid(), settings.outputDir().resolve("todo-pages-" + sizes.readers()
                                + "-readers.jfr"), true, () -> timePagesConcurrently(http, service.baseUrl(), cursors,
                                4 * sizes.warmupRequests(), sizes.readers())).profile();
                return new Result(sizes, seedSeconds, rows, applications, size, reached, without, with,
                        new ConcurrentPass(sizes.readers(), concurrent, profile));
            }
        }
    }

    /**
     * Open tasks: half assigned to a user, half unclaimed and offered to one group; created in the last
     * 60 days. Historic tasks: completed by a user over the last two years. User i is in group i mod groups;
     * users 0-3 and groups 0-3 are the demo approvers and their groups.
     */
    private static void seed(Connection db, Sizes sizes) throws SQLException {
        int applications = Math.max(1, sizes.openTasks());
        String users = "array['bob','carol','dave','frank'] || array(select 'user' || i from generate_series(4, "
                + (sizes.users() - 1) + ") i)";
        String groups = "array['managers','legal','finance','directors'] || array(select 'group' || g from generate_series(4, "
                + (sizes.groups() - 1) + ") g)";
        execute(db, "select setseed(0.5)");
        execute(db, """
                insert into application (id, title, asset_id, amount, risk_level, sensitive, applicant_id, approval_status,
                       publish_status, created_at, updated_at)
                select %d + n, 'Seeded application ' || n, n, 100 + n %% 5000, 'LOW', false, 'applicant' || n %% 500,
                       'APPROVING', 'NOT_STARTED', now() - interval '2 years', now()
                  from generate_series(0, %d) n""".formatted(FIRST_SEEDED_APPLICATION, applications - 1));
        // random() in the select list of a derived table is drawn per row (an uncorrelated lateral would be drawn once)
        execute(db, """
                insert into task_projection (task_id, process_instance_id, task_definition_key, task_name, business_type,
                       application_id, applicant_id, application_title, amount, state, assignee, candidate_groups,
                       created_at, ended_at, end_reason)
                select 'seed-open-' || n, 'seed-process-' || n, 'approve', 'Approve', 'APPLICATION', %1$d + n,
                       'applicant' || n %% 500, 'Seeded application ' || n, 100 + n %% 5000, 'OPEN',
                       case when n %% 2 = 0 then u.users[1 + who] end,
                       array[u.groups[1 + (case when n %% 2 = 0 then who %% %3$d else grp end)]],
                       created, null, null
                  from (select n, floor(random() * %4$d)::int as who, floor(random() * %3$d)::int as grp,
                               now() - random() * interval '60 days' as created
                          from generate_series(0, %2$d) n) r,
                       (select %5$s as users, %6$s as groups) u""".formatted(FIRST_SEEDED_APPLICATION,
                sizes.openTasks() - 1, sizes.groups(), sizes.users(), users, groups));
        execute(db, """
                insert into task_projection (task_id, process_instance_id, task_definition_key, task_name, business_type,
                       application_id, applicant_id, application_title, amount, state, assignee, candidate_groups,
                       created_at, ended_at, end_reason)
                select 'seed-done-' || n, 'seed-process-' || (n %% %2$d), 'approve', 'Approve', 'APPLICATION',
                       %1$d + n %% %2$d, 'applicant' || n %% 500, 'Seeded application ' || n, 100 + n %% 5000, 'COMPLETED',
                       u.users[1 + who], array[u.groups[1 + who %% %4$d]], created, created + interval '3 hours', 'APPROVE'
                  from (select n, floor(random() * %5$d)::int as who,
                               now() - interval '61 days' - random() * interval '730 days' as created
                          from generate_series(0, %3$d) n) r,
                       (select %6$s as users, %7$s as groups) u""".formatted(FIRST_SEEDED_APPLICATION, applications,
                sizes.historicTasks() - 1, sizes.groups(), sizes.users(), users, groups));
        execute(db, "vacuum analyze application");
        execute(db, "vacuum analyze task_projection");
        execute(db, "vacuum analyze task_offer");
    }

    /**
     * For each page kind and caller: the cursor that opens the deep page (null for first pages), found by
     * following the cursors; {@code reached} gets the page number that cursor opens, the lowest over callers.
     */
    static Map<Page, List<String>> deepCursors(HttpClient http, String baseUrl, int deepPage,
            Map<Page, Integer> reached) throws Exception {
        Map<Page, List<String>> cursors = new EnumMap<>(Page.class);
        for (Page page : Page.values()) {
            List<String> perCaller = new ArrayList<>();
            for (String caller : CALLERS) {
                String cursor = null;
                int pageNumber = 1;
                if (page == Page.TODO_DEEP || page == Page.DONE_DEEP) {
                    String path = page == Page.TODO_DEEP ? "/api/tasks" : "/api/tasks/done";
                    while (pageNumber < deepPage) {
                        String next = get(http, baseUrl, caller, path, cursor).path("nextCursor").asString(null);
                        if (next == null) {
                            break;
                        }
                        cursor = next;
                        pageNumber++;
                    }
                }
                perCaller.add(cursor);
                reached.merge(page, pageNumber, Math::min);
            }
            cursors.put(page, perCaller);
        }
        return cursors;
    }

    /** {@code recording}: where the JFR recording of the service over the pass goes (its JVM is {@code pid}), or null for none. */
    private static Pass measure(Connection db, HttpClient http, String baseUrl, Map<Page, List<String>> cursors,
            List<String> indexes, int requests, int warmup, long pid, Path recording) throws Exception {
        Map<String, Long> scansBefore = indexScans(db);
        timePages(http, baseUrl, cursors, 0, warmup);
        var latencies = ServiceProfile.during(pid, recording, recording != null && ServiceProfile.wanted(1),
                () -> timePages(http, baseUrl, cursors, requests, 0));
        Map<String, Long> scans = new LinkedHashMap<>();
        indexScans(db).forEach((index, count) -> scans.put(index, count - scansBefore.getOrDefault(index, 0L)));
        Map<Page, String> explain = new EnumMap<>(Page.class);
        for (Page page : Page.values()) {
            explain.put(page, explain(db, page, cursors.get(page).get(0)));
        }
        return new Pass(indexes, latencies.value(), scans, explain, latencies.profile());
    }

    /**
     * The four pages over HTTP, one request at a time, round-robin over the demo approvers, each at the cursor
     * {@link #deepCursors} found for it; the first {@code warmup} requests of each page are not recorded.
     */
    static Map<Page, OperationLatency> timePages(HttpClient http, String baseUrl, Map<Page, List<String>> cursors, int requests,
            int warmup) throws IOException, InterruptedException {
        Map<Page, OperationLatency> latencies = new EnumMap<>(Page.class);
        for (Page page : Page.values()) {
            Histogram micros = new Histogram(TimeUnit.MINUTES.toMicros(2), 3);
            for (int i = 0; i < warmup + requests; i++) {
                int caller = i % CALLERS.size();
                long start = System.nanoTime();
                get(http, baseUrl, CALLERS.get(caller), path(page), cursors.get(page).get(caller));
                if (i >= warmup) {
                    micros.recordValue(Math.min(micros.getHighestTrackableValue(), Math.max(1, (System.nanoTime() - start) / 1000)));
                }
            }
            latencies.put(page, OperationLatency.of(micros, 0));
        }
        return latencies;
    }

    /**
     * Each page read by {@code readers} clients at once, {@code requests} requests in all, each client round-robin over the
     * demo approvers from its own offset, at the cursors {@link #deepCursors} found.
     */
    static Map<Page, OperationLatency> timePagesConcurrently(HttpClient http, String baseUrl, Map<Page, List<String>> cursors,
            int requests, int readers) throws Exception {
        Map<Page, OperationLatency> latencies = new EnumMap<>(Page.class);
        ExecutorService pool = Executors.newFixedThreadPool(readers);
        try {
            for (Page page : Page.values()) {
                Histogram micros = new ConcurrentHistogram(TimeUnit.MINUTES.toMicros(2), 3);
                List<Future<?>> clients = new ArrayList<>();
                for (int reader = 0; reader < readers; reader++) {
                    int first = reader;
                    clients.add(pool.submit(() -> {
                        for (int i = first; i < requests; i += readers) {
                            int caller = i % CALLERS.size();
                            long start = System.nanoTime();
                            get(http, baseUrl, CALLERS.get(caller), path(page), cursors.get(page).get(caller));
                            micros.recordValue(Math.min(micros.getHighestTrackableValue(), Math.max(1, (System.nanoTime() - start) / 1000)));
                        }
                        return null;
                    }));
                }
                for (Future<?> client : clients) {
                    client.get();
                }
                latencies.put(page, OperationLatency.of(micros, 0));
            }
        } finally {
            pool.shutdownNow();
        }
        return latencies;
    }

    private static String path(Page page) {
        return page == Page.TODO_FIRST || page == Page.TODO_DEEP ? "/api/tasks" : "/api/tasks/done";
    }

    /** Index scans per index of task_projection so far, from PostgreSQL's statistics (the served queries' real plans). */
    private static Map<String, Long> indexScans(Connection db) throws SQLException {
        Map<String, Long> scans = new LinkedHashMap<>();
        try (Statement statement = db.createStatement()) {
            statement.execute("select pg_stat_clear_snapshot()");
            statement.execute("select pg_stat_force_next_flush()");
            try (ResultSet rows = statement.executeQuery("select indexrelname, idx_scan from pg_stat_user_indexes"
                    + " where relname in ('task_projection', 'task_offer') order by indexrelname")) {
                while (rows.next()) {
                    scans.put(rows.getString(1), rows.getLong(2));
                }
            }
            try (ResultSet rows = statement.executeQuery("select sum(seq_scan) from pg_stat_user_tables"
                    + " where relname in ('task_projection', 'task_offer')")) {
                rows.next();
                scans.put("(sequential scans)", rows.getLong(1));
            }
        }
        return scans;
    }

    /** EXPLAIN of the page's statement as the service builds it, for the first demo approver. */
    private static String explain(Connection db, Page page, String cursor) throws SQLException {
        return page == Page.TODO_FIRST || page == Page.TODO_DEEP
                ? ServedTaskStatements.explainTodo(db, CALLERS.get(0), List.of(CALLER_GROUPS.get(0)), cursor, PAGE_SIZE)
                : ServedTaskStatements.explainDone(db, CALLERS.get(0), cursor, PAGE_SIZE);
    }

    private static JsonNode get(HttpClient http, String baseUrl, String user, String path, String cursor)
            throws IOException, InterruptedException {
        String query = cursor == null ? "" : "?cursor=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8);
        HttpRequest request = HttpRequest.newBuilder(URI.create(baseUrl + path + query))
                .header("Authorization", "Basic " + Base64.getEncoder()
                        .encodeToString((user + ":lockstep").getBytes(StandardCharsets.UTF_8)))
                .header("Accept", "application/json").timeout(Duration.ofMinutes(2)).build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException("GET " + path + " as " + user + " answered " + response.statusCode() + ": "
                    + response.body());
        }
        return JSON.readTree(response.body());
    }

    static void execute(Connection db, String sql) throws SQLException {
        try (Statement statement = db.createStatement()) {
            statement.execute(sql);
        }
    }

    static long count(Connection db, String sql) throws SQLException {
        return Long.parseLong(strings(db, sql).get(0));
    }

    static List<String> strings(Connection db, String sql) throws SQLException {
        List<String> values = new ArrayList<>();
        try (Statement statement = db.createStatement(); ResultSet rows = statement.executeQuery(sql)) {
            while (rows.next()) {
                values.add(rows.getString(1));
            }
        }
        return values;
    }
}
