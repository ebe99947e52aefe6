package dev.lockstep.chaos.support;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.UUID;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** What a real client sees: HTTP requests to the service and the answers (or no answer at all). */
public final class LockstepClient {

    public static final String PASSWORD = "lockstep";
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String baseUrl;

    public LockstepClient(String baseUrl) {
        this.baseUrl = baseUrl;
    }

    /** An answer from the service; {@code status} is 0 when the connection died without one. */
    public record Answer(int status, String body, String error, boolean replayed) {

        Answer(int status, String body, String error) {
            this(status, body, error, false);
        }

        public boolean answered() {
            return status > 0;
        }

        public boolean succeeded() {
            return status >= 200 && status < 300;
        }

        public JsonNode json() {
            return JSON.readTree(body);
        }

        @Override
        public String toString() {
            return answered() ? status + " " + body : "no answer (" + error + ")";
        }
    }

    public long createDraft(String title) {
        Answer a = send("alice", "POST", "/api/applications",
                "{\"title\":\"" + title + "\",\"assetId\":42,\"amount\":1200.50,\"riskLevel\":\"LOW\",\"sensitive\":false}", null);
        if (a.status() != 201) {
            throw new AssertionError("creating a draft should give 201, got " + a);
        }
        return a.json().get("id").asLong();
    }

    public Answer submit(long applicationId, String idempotencyKey) {
        return send("alice", "POST", "/api/applications/" + applicationId + "/submit", null, idempotencyKey);
    }

    public Answer application(long applicationId) {
        return send("alice", "GET", "/api/applications/" + applicationId, null, null);
    }

    public Answer complete(String user, String taskId, String idempotencyKey) {
        return send(user, "POST", "/api/tasks/" + taskId + "/complete", "{\"decision\":\"APPROVE\",\"comment\":\"ok\"}",
                idempotencyKey);
    }

    /** The id of the first open task with the given definition key, or null. */
    public String openTask(long applicationId, String taskDefinitionKey) {
        return openTask(applicationId, taskDefinitionKey, null);
    }

    /** As {@link #openTask(long, String)}, assigned to {@code assignee} unless that is null (a countersign has one task per signer). */
    public String openTask(long applicationId, String taskDefinitionKey, String assignee) {
        Answer a = application(applicationId);
        return a.succeeded() ? openTask(a, taskDefinitionKey, assignee) : null;
    }

    /** The first open task with the given definition key (and assignee, unless null) in an application's details. */
    public static String openTask(Answer details, String taskDefinitionKey, String assignee) {
        for (JsonNode task : details.json().path("openTasks")) {
            if (taskDefinitionKey.equals(task.path("taskDefinitionKey").asString())
                    && (assignee == null || assignee.equals(task.path("assignee").asString()))) {
                return task.path("id").asString();
            }
        }
        return null;
    }

    public static String newKey() {
        return UUID.randomUUID().toString();
    }

    public Answer send(String user, String method, String path, String body, String idempotencyKey) {
        // Above Atomikos's in-request retry budget for a failed commit or rollback (5 retries 10 s apart),
        // so a scenario that kills a database still sees the answer the service gives after it.
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + path))
                .timeout(Duration.ofSeconds(90))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
                .header("Accept", "application/json, application/problem+json")
                .header("Authorization", "Basic " + Base64.getEncoder()
                        .encodeToString((user + ":" + PASSWORD).getBytes(StandardCharsets.UTF_8)));
        if (body != null) {
            request.header("Content-Type", "application/json");
        }
        if (idempotencyKey != null) {
            request.header("Idempotency-Key", idempotencyKey);
        }
        try {
            HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            return new Answer(response.statusCode(), response.body(), null,
                    response.headers().firstValue("Idempotent-Replayed").map("true"::equals).orElse(false));
        } catch (IOException e) {
            return new Answer(0, "", e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Answer(0, "", e.toString());
        }
    }
}
