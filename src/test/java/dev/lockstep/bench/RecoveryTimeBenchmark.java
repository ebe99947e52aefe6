package dev.lockstep.bench;

import dev.lockstep.chaos.InvariantChecker;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import tools.jackson.databind.json.JsonMapper;

/**
 * Recovery time (issue 5, item 6): how long a restarted service needs to resolve the transactions a
 * halted JVM left prepared. The XA service starts with a Byteman agent (bench/hold-prepared-then-halt.btm)
 * that holds every two-phase commit once both branches are prepared, alternately before the Atomikos
 * COMMITTING record is written and after it (before any branch commits), and halts the JVM when
 * {@code transactions} are held. As many
 * clients submit one application each. The same jar then restarts on the same data directories and
 * coordinator log; measured are the time until health is UP and until pg_prepared_xacts is empty on both
 * servers. The outcome is then checked with plain SQL: every held application committed on both
 * databases or on neither, as many committed as had their decision logged, and the chaos suite's
 * invariants hold.
 */
final class RecoveryTimeBenchmark {

    /**
     * {@code maxTimeout} is the service's {@code lockstep.tm.max-timeout}: Atomikos presumes abort for a
     * prepared branch without a logged decision only once it has seen it in a recovery scan and that long
     * has passed since, so it bounds the recovery time of the undecided half (the product default is 5 min).
     */
    record Sizes(int transactions, Duration limit, Duration maxTimeout) {

        /** {@code bench.recovery.*} system properties; the default is the issue's 100 transactions. */
        static Sizes fromSystemProperties() {
            return new Sizes(Integer.getInteger("bench.recovery.transactions", 100),
                    Duration.ofSeconds(Long.getLong("bench.recovery.limit-seconds", 600)),
                    Duration.ofSeconds(Long.getLong("bench.recovery.max-timeout-seconds", 60)));
        }
    }

    record Result(int transactions, int applications, long maxTimeoutSeconds, long heldBeforeDecision, long heldAfterDecision,
            long preparedBusinessAtHalt, long preparedWorkflowAtHalt, double secondsToHealthy,
            double secondsToDecidedResolved, double secondsToNoPrepared, long committedOnBoth,
            long abortedOnBoth, List<String> inconsistent, List<String> invariantViolations, List<String> answeredSubmits) {
    }

    /** Where one application's submit landed, read with plain SQL on each database. */
    private record SubmitState(boolean submittedInBusiness, boolean processInWorkflow) {

        static SubmitState of(Connection business, Connection workflow, long id) throws SQLException {
            return new SubmitState(!"DRAFT".equals(string(business, "select approval_status from application where id = ?", id)),
                    string(workflow, "select count(*) from act_hi_procinst where business_key_ = ?", Long.toString(id)).equals("1"));
        }

        @Override
        public String toString() {
            return "submitted in business " + submittedInBusiness + ", process in workflow " + processInWorkflow;
        }
    }

    /** Applications whose submit the rule held (no answer), and those whose submit answered (with its status). */
    private record Submitted(List<Long> held, Map<Long, Integer> answered) {
    }

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String CREATE_BODY = """
            {"title": "Recovery benchmark", "assetId": 7, "amount": 900.00, "riskLevel": "LOW", "sensitive": false}""";

    private RecoveryTimeBenchmark() {
    }

    static Result run(BenchmarkSettings settings, Sizes sizes) throws Exception {
        Path home = settings.outputDir().resolve("var-recovery").toAbsolutePath();
        ServiceUnderTest.deleteRecursively(home);
        Files.createDirectories(home);
        Path arm = home.resolve("hold.armed");
        Path rules = home.resolve("hold-prepared-then-halt.btm");
        Files.writeString(rules, rule().replace("@ARM@", arm.toString())
                .replace("@HOLD@", Integer.toString(sizes.transactions())));
        // Every held transaction keeps one pooled connection per database and a turn to run, and each server must keep
        // them all prepared.
        int heldWithRoom = sizes.transactions() + 10;
        List<String> capacity = List.of("--lockstep.actions.max-running=" + heldWithRoom,
                "--lockstep.db.business.pool-size=" + heldWithRoom,
                "--lockstep.db.workflow.pool-size=" + heldWithRoom,
                "--lockstep.embedded.max-prepared-transactions=" + (sizes.transactions() + 20),
                "--lockstep.tm.max-timeout=" + sizes.maxTimeout().toSeconds() + "s");

        Submitted submitted;
        long preparedBusiness;
        long preparedWorkflow;
        try (ServiceUnderTest halting = ServiceUnderTest.start(ServiceUnderTest.Deployment.XA, settings, home,
                "recovery-halted-service.log", List.of("-javaagent:" + bytemanJar() + "=script:" + rules), capacity)) {
            Files.createFile(arm);
            submitted = submitUntilHalted(halting, sizes);
            // the halted JVM's PostgreSQL servers are separate processes and still run: count what it left
            preparedBusiness = preparedCount(halting.jdbcUrls.get("lockstep_business"));
            preparedWorkflow = preparedCount(halting.jdbcUrls.get("lockstep_workflow"));
        }
        String haltedLog = Files.readString(settings.outputDir().resolve("recovery-halted-service.log"));
        long heldBefore = haltedLog.lines().filter(line -> line.startsWith("BENCH held before the commit decision")).count();
        long heldAfter = haltedLog.lines().filter(line -> line.startsWith("BENCH held after the commit decision")).count();

        Instant restart = Instant.now();
        try (ServiceUnderTest restarted = ServiceUnderTest.start(ServiceUnderTest.Deployment.XA, settings, home,
                "recovery-restarted-service.log", List.of(), capacity)) {
            double toHealthy = Duration.between(restart, Instant.now()).toMillis() / 1000.0;
            String business = restarted.jdbcUrls.get("lockstep_business");
            String workflow = restarted.jdbcUrls.get("lockstep_workflow");
            Instant deadline = restart.plus(sizes.limit());
            Double toDecidedResolved = null;
            long left;
            while ((left = preparedCount(business) + preparedCount(workflow)) > 0) {
                // the logged decisions are replayed first; what is left then is the undecided half's two branches each
                if (toDecidedResolved == null && left <= 2 * heldBefore) {
                    toDecidedResolved = Duration.between(restart, Instant.now()).toMillis() / 1000.0;
                }
                if (Instant.now().isAfter(deadline)) {
                    throw new IllegalStateException(left + " prepared transactions still left " + sizes.limit()
                            + " after the restart");
                }
                ServiceUnderTest.sleep(Duration.ofMillis(100));
            }
            double toNoPrepared = Duration.between(restart, Instant.now()).toMillis() / 1000.0;
            try (Connection b = DriverManager.getConnection(business, "postgres", "");
                    Connection w = DriverManager.getConnection(workflow, "postgres", "")) {
                long committed = 0;
                long aborted = 0;
                List<String> inconsistent = new ArrayList<>();
                for (long id : submitted.held()) {
                    SubmitState state = SubmitState.of(b, w, id);
                    if (state.submittedInBusiness() && state.processInWorkflow()) {
                        committed++;
                    } else if (!state.submittedInBusiness() && !state.processInWorkflow()) {
                        aborted++;
                    } else {
                        inconsistent.add("application " + id + ": " + state);
                    }
                }
                List<String> answered = new ArrayList<>();
                for (Map.Entry<Long, Integer> submit : submitted.answered().entrySet()) {
                    long id = submit.getKey();
                    SubmitState state = SubmitState.of(b, w, id);
                    answered.add("application " + id + ": HTTP " + submit.getValue() + ", " + state);
                    if (state.submittedInBusiness() != state.processInWorkflow()) {
                        inconsistent.add("application " + id + " (answered " + submit.getValue() + "): " + state);
                    }
                }
                InvariantChecker.Result invariants = new InvariantChecker().check(b, w, false);
                return new Result(sizes.transactions(), submitted.held().size(), sizes.maxTimeout().toSeconds(), heldBefore,
                        heldAfter, preparedBusiness, preparedWorkflow, toHealthy,
                        toDecidedResolved == null ? toNoPrepared : toDecidedResolved, toNoPrepared, committed, aborted, inconsistent,
                        invariants.violations(), answered);
            }
        }
    }

    /**
     * {@code transactions} clients each create an application and submit it; the rule holds every submit
     * and the last one halts the service. A submit that answers was not held (under this load one can
     * outlive its transaction timeout and roll back): its client records it and submits another
     * application, so the halt still comes after exactly {@code transactions} held commits.
     */
    private static Submitted submitUntilHalted(ServiceUnderTest service, Sizes sizes) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        List<Long> applications = Collections.synchronizedList(new ArrayList<>());
        Map<Long, Integer> answered = new ConcurrentHashMap<>();
        ExecutorService clients = Executors.newFixedThreadPool(sizes.transactions());
        try {
            for (int i = 0; i < sizes.transactions(); i++) {
                clients.submit(() -> {
                    while (!Thread.currentThread().isInterrupted()) { // ends when the halted service stops answering
                        HttpResponse<String> created = post(http, service.baseUrl() + "/api/applications", CREATE_BODY);
                        if (created.statusCode() != 201) {
                            throw new IllegalStateException("create answered " + created.statusCode() + ": " + created.body());
                        }
                        long id = JSON.readTree(created.body()).get("id").asLong();
                        applications.add(id);
                        answered.put(id, post(http, service.baseUrl() + "/api/applications/" + id + "/submit", "").statusCode());
                    }
                    return null;
                });
            }
            if (!service.awaitExit(sizes.limit())) {
                throw new IllegalStateException("the service did not halt within " + sizes.limit() + ": fewer than "
                        + sizes.transactions() + " commits were held; see recovery-halted-service.log");
            }
        } finally {
            clients.shutdownNow();
        }
        List<Long> held = applications.stream().filter(id -> !answered.containsKey(id)).toList();
        return new Submitted(held, Map.copyOf(answered));
    }

    private static HttpResponse<String> post(HttpClient http, String url, String body) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(url))
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("alice:lockstep".getBytes(StandardCharsets.UTF_8)))
                .header("Content-Type", "application/json").header("Accept", "application/json")
                .header("Idempotency-Key", UUID.randomUUID().toString())
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static long preparedCount(String jdbcUrl) throws SQLException {
        try (Connection db = DriverManager.getConnection(jdbcUrl, "postgres", "")) {
            return Long.parseLong(string(db, "select count(*) from pg_prepared_xacts"));
        }
    }

    private static String string(Connection db, String sql, Object... args) throws SQLException {
        try (PreparedStatement statement = db.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                statement.setObject(i + 1, args[i]);
            }
            try (ResultSet rows = statement.executeQuery()) {
                return rows.next() ? rows.getString(1) : null;
            }
        }
    }

    private static String rule() throws IOException {
        try (InputStream in = Objects.requireNonNull(RecoveryTimeBenchmark.class.getResourceAsStream("/bench/hold-prepared-then-halt.btm"))) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** The Byteman agent jar: the byteman test dependency on this JVM's class path. */
    private static Path bytemanJar() throws ClassNotFoundException, URISyntaxException {
        return Path.of(Class.forName("org.jboss.byteman.agent.Main").getProtectionDomain().getCodeSource().getLocation().toURI());
    }
}
