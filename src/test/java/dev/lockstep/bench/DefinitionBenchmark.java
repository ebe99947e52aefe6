package dev.lockstep.bench;

import dev.lockstep.bench.ServiceUnderTest.Deployment;
import dev.lockstep.support.DeclarativeSamples;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;

/**
 * Issue 30's two figures, on one XA service (docs/performance.md, "Deployed definitions"):
 * <ul>
 * <li>approval cycles per second on a declarative flow deployed over the API with the built-in flow's shape for a LOW,
 * non-sensitive application (manager, then the parallel reviews skipped by a condition, then final), against the
 * built-in flow itself, and on the same declarative flow with a deadline on every step (the built-in tasks carry the
 * step-deadline policy's boundary events, a compiled step only what it declares), the three taking turns in the same
 * service, in reversed order every other round, so that drift on this noisy machine falls on all of them;</li>
 * <li>propose (compile and check) and approve (deploy into the engine) of the 50-step flow, against a one-step flow
 * proposed and approved the same way in the same run.</li>
 * </ul>
 */
final class DefinitionBenchmark {

    static final String BUILT_IN_SHAPE = """
            {"name": "Built-in shape", "steps": [
              {"id": "managerApproval", "name": "Manager approval", "candidateGroups": ["managers"]},
              {"id": "reviewFork", "name": "Legal and finance review", "when": "riskLevel == 'HIGH' || sensitive",
               "parallel": [[{"id": "legalReview", "name": "Legal review", "candidateGroups": ["legal"]}],
                            [{"id": "financeReview", "name": "Finance review", "candidateGroups": ["finance"]}]]},
              {"id": "finalApproval", "name": "Final approval", "candidateGroups": ["directors"]}]}""";
    /** The same shape with a deadline on every step: one timer boundary event per user task, as a deadline compiles to. */
    static final String BUILT_IN_SHAPE_WITH_DEADLINES = BUILT_IN_SHAPE.replace("\"candidateGroups\"", "\"deadline\": \"P15D\", \"candidateGroups\"");
    private static final String ONE_STEP = """
            {"name": "One step", "steps": [{"id": "managerApproval", "candidateGroups": ["managers"]}]}""";
    private static final String DEPLOYED_CREATE_BODY = """
            {"type": "%s", "title": "Benchmark asset", "fields": {"amount": 1200.50, "riskLevel": "LOW", "sensitive": false}}""";

    /**
     * The cycles-per-second lists hold each round's figure (built-in first in odd rounds, last in even ones); the 50-step
     * and one-step figures are milliseconds per proposal and per approval, each of {@code deploys} runs.
     */
    record Result(int clients, List<Double> builtInCyclesPerSecond, List<Double> deployedCyclesPerSecond,
            List<Double> deployedWithDeadlinesCyclesPerSecond, List<Double> fiftyStepProposeMillis,
            List<Double> fiftyStepApproveMillis, List<Double> oneStepProposeMillis, List<Double> oneStepApproveMillis) {

        /** How much more a deployed flow's cycle costs: built-in rate over deployed rate, minus one, summed over the rounds. */
        double deployedCostShare() {
            return costShare(deployedCyclesPerSecond);
        }

        double deployedWithDeadlinesCostShare() {
            return costShare(deployedWithDeadlinesCyclesPerSecond);
        }

        private double costShare(List<Double> deployedRates) {
            return sum(builtInCyclesPerSecond) / sum(deployedRates) - 1;
        }
    }

    private DefinitionBenchmark() {
    }

    static Result run(BenchmarkSettings settings, int clients, int rounds, int deploys) throws Exception {
        try (ServiceUnderTest service = ServiceUnderTest.start(Deployment.XA, "definitions", settings, List.of())) {
            Admin admin = new Admin(service.baseUrl());
            admin.register("BUILT_IN_SHAPE", "amount", "riskLevel", "sensitive");
            admin.deploy("BUILT_IN_SHAPE", BUILT_IN_SHAPE, 1);
            admin.register("WITH_DEADLINES", "amount", "riskLevel", "sensitive");
            admin.deploy("WITH_DEADLINES", BUILT_IN_SHAPE_WITH_DEADLINES, 1);

            List<String> createBodies = List.of(ApprovalCycleClient.CREATE_BODY, DEPLOYED_CREATE_BODY.formatted("BUILT_IN_SHAPE"),
                    DEPLOYED_CREATE_BODY.formatted("WITH_DEADLINES"));
            List<List<Double>> rates = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
            for (int round = 0; round < rounds; round++) {
                Duration warmup = round == 0 ? settings.warmup() : settings.warmup().dividedBy(3);
                for (int turn = 0; turn < createBodies.size(); turn++) {
                    int flow = round % 2 == 0 ? turn : createBodies.size() - 1 - turn;
                    rates.get(flow).add(LoadRun.run(service.baseUrl(), createBodies.get(flow), clients, warmup, settings.measure(),
                            () -> { }, () -> { }).cyclesPerSecond());
                }
            }

            admin.register("LONG_FLOW", "urgent");
            admin.register("ONE_STEP");
            List<Double> fiftyPropose = new ArrayList<>();
            List<Double> fiftyApprove = new ArrayList<>();
            List<Double> onePropose = new ArrayList<>();
            List<Double> oneApprove = new ArrayList<>();
            String fiftySteps = DeclarativeSamples.fiftySteps();
            for (int version = 1; version <= deploys; version++) {
                double[] one = admin.deploy("ONE_STEP", ONE_STEP, version);
                double[] fifty = admin.deploy("LONG_FLOW", fiftySteps, version);
                onePropose.add(one[0]);
                oneApprove.add(one[1]);
                fiftyPropose.add(fifty[0]);
                fiftyApprove.add(fifty[1]);
            }
            return new Result(clients, rates.get(0), rates.get(1), rates.get(2), fiftyPropose, fiftyApprove, onePropose, oneApprove);
        }
    }

    /** erin proposes, grace approves: the four-eyes deployment over HTTP, timed from the client. */
    private record Admin(String baseUrl, HttpClient http) {

        Admin(String baseUrl) {
            this(baseUrl, HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build());
        }

        /** A type whose listed fields are routable: numbers, except riskLevel (a string) and sensitive/urgent (booleans). */
        void register(String key, String... routable) throws IOException, InterruptedException {
            List<String> properties = new ArrayList<>();
            for (String field : routable) {
                String type = field.equals("riskLevel") ? "string" : field.equals("sensitive") || field.equals("urgent") ? "boolean" : "number";
                properties.add("\"" + field + "\": {\"type\": \"" + type + "\"}");
            }
            post("erin", "/api/business-types", """
                    {"key": "%s", "name": "%s", "routableFields": [%s], "publishes": false,
                     "schema": {"type": "object", "properties": {%s}}}""".formatted(key, key,
                    String.join(", ", List.of(routable).stream().map(f -> "\"" + f + "\"").toList()), String.join(", ", properties)), 201);
        }

        /** Proposes {@code flow} as {@code version} of {@code key} and approves it; answers the milliseconds of each. */
        double[] deploy(String key, String flow, int version) throws IOException, InterruptedException {
            double propose = post("erin", "/api/business-types/" + key + "/definitions", flow, 201);
            double approve = post("grace", "/api/business-types/" + key + "/definitions/" + version + "/approve", null, 200);
            return new double[] {propose, approve};
        }

        private double post(String user, String path, String body, int expected) throws IOException, InterruptedException {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + path))
                    .header("Authorization", "Basic " + Base64.getEncoder().encodeToString((user + ":lockstep").getBytes(StandardCharsets.UTF_8)))
                    .header("Accept", "application/json")
                    .POST(body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
            if (body != null) {
                request.header("Content-Type", "application/json");
            }
            long start = System.nanoTime();
            HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            double millis = (System.nanoTime() - start) / 1e6;
            if (response.statusCode() != expected) {
                throw new IllegalStateException("POST " + path + " as " + user + " answered " + response.statusCode() + ": " + response.body());
            }
            return millis;
        }
    }

    static String markdown(Result result) {
        StringBuilder rounds = new StringBuilder();
        for (int i = 0; i < result.builtInCyclesPerSecond().size(); i++) {
            double builtIn = result.builtInCyclesPerSecond().get(i);
            double deployed = result.deployedCyclesPerSecond().get(i);
            double withDeadlines = result.deployedWithDeadlinesCyclesPerSecond().get(i);
            rounds.append(String.format(Locale.ROOT, "| %d | %.1f | %.1f | %+.1f %% | %.1f | %+.1f %% |%n", i + 1, builtIn, deployed,
                    (builtIn / deployed - 1) * 100, withDeadlines, (builtIn / withDeadlines - 1) * 100));
        }
        return String.format(Locale.ROOT, """
                ## Deployed definitions

                Approval cycles per second at %d clients, the built-in flow and a declarative flow of the same shape deployed \
                over the API, without deadlines and with one on every step, taking turns in one XA service (built-in first in \
                odd rounds, last in even ones). Over all rounds a deployed cycle costs %+.1f %%, with deadlines %+.1f %% \
                (target: at most +5 %%):

                | round | built-in cycles/s | deployed cycles/s | deployed costs | with deadlines cycles/s | with deadlines costs |
                |---:|---:|---:|---:|---:|---:|
                %s
                Propose (compile and check) and approve (deploy into the engine) over HTTP, median of %d, in ms:

                | flow | propose | approve | propose + approve |
                |---|---:|---:|---:|
                | 50 steps (55 user tasks) | %.0f | %.0f | %.0f |
                | 1 step | %.0f | %.0f | %.0f |

                The 50-step flow's propose + approve is %.1f times the one-step flow's (target: under 2 s).
                """, result.clients(), result.deployedCostShare() * 100, result.deployedWithDeadlinesCostShare() * 100, rounds, result.fiftyStepProposeMillis().size(),
                median(result.fiftyStepProposeMillis()), median(result.fiftyStepApproveMillis()),
                median(sums(result.fiftyStepProposeMillis(), result.fiftyStepApproveMillis())),
                median(result.oneStepProposeMillis()), median(result.oneStepApproveMillis()),
                median(sums(result.oneStepProposeMillis(), result.oneStepApproveMillis())),
                median(sums(result.fiftyStepProposeMillis(), result.fiftyStepApproveMillis()))
                        / median(sums(result.oneStepProposeMillis(), result.oneStepApproveMillis())));
    }

    private static double sum(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).sum();
    }

    private static List<Double> sums(List<Double> a, List<Double> b) {
        List<Double> sums = new ArrayList<>();
        for (int i = 0; i < a.size(); i++) {
            sums.add(a.get(i) + b.get(i));
        }
        return sums;
    }

    private static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int middle = sorted.size() / 2;
        return sorted.size() % 2 == 1 ? sorted.get(middle) : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
    }
}
