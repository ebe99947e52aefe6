package dev.lockstep.publish;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * The catalog over HTTP, as the publisher sees it: a create keyed by the event id, and a lookup of
 * what became of an event id. Never called inside a transaction.
 */
class CatalogClient {

    static final String IDEMPOTENCY_KEY = "Idempotency-Key";

    private final Supplier<URI> baseUrl;
    private final String token;
    private final Duration readTimeout;
    private final HttpClient http;

    CatalogClient(Supplier<URI> baseUrl, String token, Duration connectTimeout, Duration readTimeout) {
        this.baseUrl = baseUrl;
        this.token = token;
        this.readTimeout = readTimeout;
        this.http = HttpClient.newBuilder().connectTimeout(connectTimeout).version(HttpClient.Version.HTTP_1_1).build();
    }

    /** The status the catalog answered the create with; an IOException when there was no answer. */
    int publish(String eventId, String payloadJson) throws IOException, InterruptedException {
        HttpRequest request = request("/publications")
                .header(IDEMPOTENCY_KEY, eventId)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(payloadJson))
                .build();
        return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    enum Lookup { APPLIED, NOT_APPLIED, UNKNOWN }

    /** Asks whether the catalog applied {@code eventId}; UNKNOWN when it cannot tell (down, slow, error). */
    Lookup lookup(String eventId) throws InterruptedException {
        try {
            int status = http.send(request("/publications/" + eventId).GET().build(), HttpResponse.BodyHandlers.discarding())
                    .statusCode();
            return status == 200 ? Lookup.APPLIED : status == 404 ? Lookup.NOT_APPLIED : Lookup.UNKNOWN;
        } catch (IOException e) {
            return Lookup.UNKNOWN;
        }
    }

    URI baseUrl() {
        return baseUrl.get();
    }

    private HttpRequest.Builder request(String path) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(baseUrl.get().toString().replaceAll("/+$", "") + path))
                .timeout(readTimeout);
        if (token != null && !token.isBlank()) {
            builder.header("Authorization", "Bearer " + token);
        }
        return builder;
    }
}
