package dev.lockstep.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * One simulated user session over real HTTP: alice creates and submits a low-risk application, bob
 * approves the manager task and frank the final one, each approver finding his task on the
 * application as a real client would. Every request's latency goes to the current recording.
 */
final class ApprovalCycleClient {

    /** The operations of one cycle, in order; the four writes are one transaction each. */
    enum Operation { CREATE, SUBMIT, READ_TASKS, APPROVE_MANAGER, APPROVE_FINAL, CYCLE }

    static final int WRITE_TRANSACTIONS_PER_CYCLE = 4;
    private static final JsonMapper JSON = JsonMapper.builder().build();
    static final String CREATE_BODY = """
            {"title": "Benchmark asset", "assetId": 42, "amount": 1200.50, "riskLevel": "LOW", "sensitive": false}""";

    private final HttpClient http;
    private final String baseUrl;
    private final String createBody;

    ApprovalCycleClient(HttpClient http, String baseUrl) {
        this(http, baseUrl, CREATE_BODY);
    }

    /** {@code createBody}: what alice creates each cycle, e.g. an application of a registered type whose flow has the same two steps. */
    ApprovalCycleClient(HttpClient http, String baseUrl, String createBody) {
        this.http = http;
        this.baseUrl = baseUrl;
        this.createBody = createBody;
    }

    /** Runs create → submit → manager approval → final approval; false when a step did not answer as expected. */
    boolean runCycle(LatencyRecording recording) {
        long cycleStart = System.nanoTime();
        JsonNode created = call(recording, Operation.CREATE, "alice", "/api/applications", createBody, null, 201);
        if (created == null) {
            return false;
        }
        long id = created.get("id").asLong();
        String base = "/api/applications/" + id;
        if (call(recording, Operation.SUBMIT, "alice", base + "/submit", "", UUID.randomUUID().toString(), 200) == null
                || !approve(recording, Operation.APPROVE_MANAGER, "bob", base)
                || !approve(recording, Operation.APPROVE_FINAL, "frank", base)) {
            return false;
        }
        recording.record(Operation.CYCLE, System.nanoTime() - cycleStart);
        return true;
    }

    /**
     * One application of another shape run to its end, for the history benchmark's template processes: created
     * with {@code createBody} and submitted by alice, then each of {@code deciders} in turn decides the open task
     * assigned or offered to them, if there is one. Returns the application's id and its final status.
     */
    Ended runToEnd(String createBody, String decision, List<String> deciders) {
        LatencyRecording ignored = new LatencyRecording();
        JsonNode created = require(call(ignored, Operation.CREATE, "alice", "/api/applications", createBody, null, 201), "create");
        String base = "/api/applications/" + created.get("id").asLong();
        require(call(ignored, Operation.SUBMIT, "alice", base + "/submit", "", UUID.randomUUID().toString(), 200), "submit");
        for (String decider : deciders) {
            JsonNode task = openTaskOf(require(call(ignored, Operation.READ_TASKS, decider, base, null, null, 200), "read"), decider);
            if (task != null) {
                require(call(ignored, Operation.CYCLE, decider, "/api/tasks/" + task.get("id").asString() + "/complete",
                        "{\"decision\":\"" + decision + "\",\"comment\":\"benchmark\"}", UUID.randomUUID().toString(), 200),
                        decider + " deciding");
            }
        }
        JsonNode application = require(call(ignored, Operation.READ_TASKS, "alice", base, null, null, 200), "read");
        return new Ended(application.get("id").asLong(), application.get("approvalStatus").asString());
    }

    record Ended(long applicationId, String approvalStatus) {
    }

    /** The first open task assigned to {@code user} or offered to a group (unassigned), or null. */
    private static JsonNode openTaskOf(JsonNode application, String user) {
        for (JsonNode task : application.get("openTasks")) {
            JsonNode assignee = task.get("assignee");
            if (assignee == null || assignee.isNull() || user.equals(assignee.asString())) {
                return task;
            }
        }
        return null;
    }

    private static JsonNode require(JsonNode answer, String step) {
        if (answer == null) {
            throw new IllegalStateException(step + " did not answer as expected");
        }
        return answer;
    }

    private boolean approve(LatencyRecording recording, Operation operation, String approver, String applicationPath) {
        JsonNode details = call(recording, Operation.READ_TASKS, approver, applicationPath, null, null, 200);
        if (details == null || details.get("openTasks").isEmpty()) {
            recording.error(operation);
            return false;
        }
        String taskId = details.get("openTasks").get(0).get("id").asString();
        return call(recording, operation, approver, "/api/tasks/" + taskId + "/complete",
                "{\"decision\":\"APPROVE\",\"comment\":\"benchmark\"}", UUID.randomUUID().toString(), 200) != null;
    }

    private JsonNode call(LatencyRecording recording, Operation operation, String user, String path, String body,
            String idempotencyKey, int expectedStatus) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + path))
                .header("Authorization", "Basic " + Base64.getEncoder()
                        .encodeToString((user + ":lockstep").getBytes(StandardCharsets.UTF_8)))
                .header("Accept", "application/json");
        if (body == null) {
            request.GET();
        } else {
            request.header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        }
        if (idempotencyKey != null) {
            request.header("Idempotency-Key", idempotencyKey);
        }
        long start = System.nanoTime();
        try {
            HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            long elapsed = System.nanoTime() - start;
            if (response.statusCode() != expectedStatus) {
                recording.error(operation);
                return null;
            }
            recording.record(operation, elapsed);
            return JSON.readTree(response.body());
        } catch (IOException e) {
            recording.error(operation);
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}
