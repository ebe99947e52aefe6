package dev.lockstep.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.approval.ApiFlows;
import dev.lockstep.support.Api;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.TestDatabases;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.statistics.Statistics;
import org.springframework.context.ApplicationContext;
import org.springframework.test.context.TestContextManager;
import org.springframework.util.unit.DataSize;
import tools.jackson.databind.JsonNode;

/**
 * A seeded, property-based fuzz run (jqwik) against the running service: requests across every operation
 * of its live OpenAPI description and every demo user, with valid, boundary and hostile values. No
 * answer may be a 5xx other than 503 with Retry-After, and every 4xx must be problem+json with a code.
 *
 * <p>jqwik runs beside JUnit Jupiter on the JUnit Platform, without Spring's Jupiter extension; the
 * service is the cached context of {@link LockstepIntegrationTest}, loaded through Spring's
 * {@link TestContextManager}, so the fuzz run shares the servers with the other integration tests.
 * Size and seed: {@link FuzzSettings}.
 */
@LockstepIntegrationTest
class ApiFuzzTest {

    /** The demo users of the README, every role. */
    static final List<String> DEMO_USERS = List.of("alice", "bob", "carol", "dave", "frank", "erin", "dba1", "dba2", "audrey");

    private static Api api;
    private static ApiDescription description;
    private static GeneratedValues values;
    private static int headLimitBytes;
    private static final List<Long> applicationIds = new CopyOnWriteArrayList<>();
    private static final List<String> taskIds = new CopyOnWriteArrayList<>();

    @BeforeContainer
    static void describeTheRunningService() throws Exception {
        ApplicationContext context = new TestContextManager(ApiFuzzTest.class).getTestContext().getApplicationContext();
        api = context.getBean(Api.class);
        Api.Response document = api.get("alice", "/v3/api-docs");
        assertThat(document.status()).as(document.toString()).isEqualTo(200);
        description = ApiDescription.of(document.json());
        assertThat(description.operations()).hasSizeGreaterThan(20);
        knownObjects(context.getBean(TestDatabases.class));
        values = new GeneratedValues(description, () -> applicationIds, () -> taskIds, DEMO_USERS);
        headLimitBytes = Math.toIntExact(context.getEnvironment()
                .getRequiredProperty("server.max-http-request-header-size", DataSize.class).toBytes());
    }

    /** A few applications in different states, so generated ids often hit real ones. */
    private static void knownObjects(TestDatabases databases) {
        applicationIds.add(ApiFlows.createDraft(api, "LOW", false));
        for (String risk : List.of("LOW", "HIGH")) {
            long id = ApiFlows.createDraft(api, risk, true);
            ApiFlows.submit(api, id);
            applicationIds.add(id);
        }
        taskIds.addAll(databases.workflow().queryForList("select id_ from act_ru_task order by create_time_ desc limit 20",
                String.class));
    }

    // Edge cases off: jqwik's combined edge cases would favour the operations with most parameters; the
    // boundary values are part of the generators instead. No shrinking: the server's state moves on.
    @Property(shrinking = ShrinkingMode.OFF, edgeCases = EdgeCasesMode.NONE)
    @AddLifecycleHook(FuzzSettings.class)
    void noRequestGetsAServerErrorAndEveryRefusalIsAProblem(@ForAll("requests") FuzzRequest request) {
        Statistics.label("operation").collect(request.operation());
        Api.Response response;
        try {
            response = api.send(request.user(), request.method(), request.path(), request.body(), request.idempotencyKey());
        } catch (IllegalStateException e) {
            assertRefusedUnreadAndStillServing(request, e);
            return;
        }
        Statistics.label("status").collect(response.status());
        String context = "seed " + FuzzSettings.seed + ", " + request + " -> " + response;

        if (response.status() >= 500) {
            assertThat(response.status()).as(context).isEqualTo(503);
            assertThat(response.header("Retry-After")).as(context).isNotBlank();
        }
        if (response.status() >= 400) {
            assertThat(response.contentType()).as(context).startsWith("application/problem+json");
            assertThat(response.json().path("code").asString("")).as(context).isNotBlank();
        }
        if (response.status() == 201 && request.operation().equals("POST /api/applications")) {
            applicationIds.add(response.json().get("id").asLong());
        }
    }

    /**
     * A request line and headers over the server's limit are refused with a 400 problem before they are read, and
     * the connection is closed (RFC 9112 §9.6). A client still writing its oversized head when the close arrives
     * may see the connection reset instead of the answer; that, and only for such a head, is an acceptable outcome,
     * provided the server goes on serving.
     */
    private static void assertRefusedUnreadAndStillServing(FuzzRequest request, IllegalStateException failure) {
        String context = "seed " + FuzzSettings.seed + ", " + request;
        assertThat(failure.getCause()).as(context).isInstanceOf(IOException.class);
        // The client adds under 1 KiB of its own (Host, Authorization, Accept, ...): a smaller head must be answered.
        assertThat(request.path().length() + (request.idempotencyKey() == null ? 0 : request.idempotencyKey().length()))
                .as(context + ": connection closed on a request within the server's header limit")
                .isGreaterThan(headLimitBytes - 1024);
        Statistics.label("status").collect("connection closed on an oversized head");
        // Any answer (the health status may be degraded by other tests' state) shows the server goes on serving.
        assertThat(api.get(null, "/actuator/health").status()).as(context + ", then /actuator/health").isIn(200, 503);
    }

    record FuzzRequest(String operation, String user, String method, String path, String body, String idempotencyKey) {

        @Override
        public String toString() {
            return (user == null ? "anonymous" : user) + " " + method + " " + path
                    + (idempotencyKey == null ? "" : " [Idempotency-Key " + idempotencyKey + "]")
                    + (body == null ? "" : " " + (body.length() > 300 ? body.substring(0, 300) + "…" : body));
        }
    }

    @Provide
    Arbitrary<FuzzRequest> requests() {
        return Arbitraries.of(description.operations()).flatMap(this::request);
    }

    private Arbitrary<FuzzRequest> request(ApiDescription.Operation operation) {
        List<Arbitrary<Object>> parts = new ArrayList<>();
        for (ApiDescription.Parameter parameter : operation.parameters()) {
            parts.add(parameterValue(parameter));
        }
        Arbitrary<String> body = operation.body() == null ? Arbitraries.just(null) : body(operation);
        return Combinators.combine(values.user(), body, Combinators.combine(parts).as(List::copyOf))
                .as((user, json, parameterValues) -> {
                    String path = operation.path();
                    List<String> query = new ArrayList<>();
                    String idempotencyKey = null;
                    for (int i = 0; i < operation.parameters().size(); i++) {
                        ApiDescription.Parameter parameter = operation.parameters().get(i);
                        Object value = parameterValues.get(i);
                        if (value == GeneratedValues.ABSENT) {
                            continue;
                        }
                        switch (parameter.in()) {
                            case "path" -> path = path.replace("{" + parameter.name() + "}", encode(GeneratedValues.text(value)));
                            case "query" -> query.add(encode(parameter.name()) + "=" + encode(GeneratedValues.text(value)));
                            case "header" -> idempotencyKey = GeneratedValues.text(value);
                            default -> { }
                        }
                    }
                    return new FuzzRequest(operation.key(), user, operation.method(),
                            query.isEmpty() ? path : path + "?" + String.join("&", query), json, idempotencyKey);
                });
    }

    /** Path values always; query parameters and headers sometimes left out, whether required or not. */
    private Arbitrary<Object> parameterValue(ApiDescription.Parameter parameter) {
        if ("header".equals(parameter.in())) {
            return values.idempotencyKey().map(key -> key == null ? GeneratedValues.ABSENT : key);
        }
        Arbitrary<Object> value = parameter.name().toLowerCase().contains("taskid") ? values.taskId()
                : values.forSchema(parameter.schema(), parameter.name());
        if ("path".equals(parameter.in())) {
            return value;
        }
        return Arbitraries.frequencyOf(Tuple.of(parameter.required() ? 8 : 4, value),
                Tuple.of(3, Arbitraries.just(GeneratedValues.ABSENT)));
    }

    private Arbitrary<String> body(ApiDescription.Operation operation) {
        return Arbitraries.frequencyOf(
                Tuple.of(12, values.object(description.resolve(operation.body())).map(GeneratedValues::json)),
                Tuple.of(1, Arbitraries.of("{\"title\": ", "", "null", "[]", "\"text\"", "{\"a\":" + "[".repeat(2000))),
                Tuple.of(1, Arbitraries.just(null)));
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
