package dev.lockstep.support;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.test.context.TestComponent;
import org.springframework.core.env.Environment;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** A real HTTP client against the running service, logged in as one of the demo users. */
@TestComponent
public class Api {

    public static final String DEMO_PASSWORD = "lockstep";
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String JSON_OR_PROBLEM = "application/json, application/problem+json";

    private final HttpClient http = HttpClient.newHttpClient();
    private final Environment environment;

    public Api(Environment environment) {
        this.environment = environment;
    }

    public Response get(String user, String path) {
        return send(user, "GET", path, null, null);
    }

    public Response post(String user, String path, String jsonBody) {
        return send(user, "POST", path, jsonBody, null);
    }

    public Response post(String user, String path, String jsonBody, String idempotencyKey) {
        return send(user, "POST", path, jsonBody, idempotencyKey);
    }

    /** A GET for endpoints that answer in another media type, e.g. text/plain from /actuator/prometheus. */
    public Response get(String user, String path, String accept) {
        return send(user, "GET", path, null, null, accept);
    }

    /** A POST of a body in another media type, e.g. a BPMN document as {@code application/xml}. */
    public Response postDocument(String user, String path, String contentType, byte[] body) {
        Map<String, String> headers = headers(user, null, JSON_OR_PROBLEM);
        headers.put("Content-Type", contentType);
        return send("POST", path, HttpRequest.BodyPublishers.ofByteArray(body), headers);
    }

    public Response send(String user, String method, String path, String jsonBody, String idempotencyKey) {
        return send(user, method, path, jsonBody, idempotencyKey, JSON_OR_PROBLEM);
    }

    private Response send(String user, String method, String path, String jsonBody, String idempotencyKey, String accept) {
        return send(method, path, jsonBody, headers(user, idempotencyKey, accept));
    }

    private static Map<String, String> headers(String user, String idempotencyKey, String accept) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Accept", accept);
        if (user != null) {
            String token = Base64.getEncoder().encodeToString((user + ":" + DEMO_PASSWORD).getBytes(StandardCharsets.UTF_8));
            headers.put("Authorization", "Basic " + token);
        }
        if (idempotencyKey != null) {
            headers.put("Idempotency-Key", idempotencyKey);
        }
        return headers;
    }

    /** A request with exactly these headers (and Content-Type for a body): e.g. a bearer token instead of a user. */
    public Response send(String method, String path, String jsonBody, Map<String, String> headers) {
        Map<String, String> all = new LinkedHashMap<>(headers);
        if (jsonBody != null) {
            all.putIfAbsent("Content-Type", "application/json");
        }
        return send(method, path, jsonBody == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(jsonBody, StandardCharsets.UTF_8), all);
    }

    private Response send(String method, String path, HttpRequest.BodyPublisher body, Map<String, String> headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl() + path)).method(method, body);
        headers.forEach(request::header);
        try {
            HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            return new Response(response.statusCode(), response.headers().firstValue("Content-Type").orElse(""),
                    response.body(), response.headers());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public String baseUrl() {
        return "http://localhost:" + environment.getProperty("local.server.port");
    }

    public record Response(int status, String contentType, String body, HttpHeaders headers) {

        /** The first value of a response header, or null. */
        public String header(String name) {
            return headers.firstValue(name).orElse(null);
        }

        public JsonNode json() {
            return JSON.readTree(body);
        }

        @Override
        public String toString() {
            return status + " " + contentType + " " + body;
        }
    }
}
