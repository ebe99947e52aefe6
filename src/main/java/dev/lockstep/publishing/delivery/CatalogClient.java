package dev.lockstep.publishing.delivery;

import dev.lockstep.platform.AreaApi;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.function.Supplier;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The asset catalog over HTTP, as the publisher sees it: a create keyed by the event id, and a lookup
 * of what became of an event id. Every call is refused inside a transaction
 * ({@link RemoteCallOutsideTransaction}).
 */
@AreaApi
public class CatalogClient {

    public static final String IDEMPOTENCY_KEY = "Idempotency-Key";

    private final Supplier<URI> baseUrl;
    private final String token;
    private final Duration readTimeout;
    private final HttpClient http;
    private final JsonMapper json = JsonMapper.builder().build();
    private final RemoteCallOutsideTransaction outsideTransaction;

    public CatalogClient(Supplier<URI> baseUrl, String token, Duration connectTimeout, Duration readTimeout,
            RemoteCallOutsideTransaction outsideTransaction) {
        this.baseUrl = baseUrl;
        this.token = token;
        this.readTimeout = readTimeout;
        this.outsideTransaction = outsideTransaction;
        this.http = HttpClient.newBuilder().connectTimeout(connectTimeout).version(HttpClient.Version.HTTP_1_1).build();
    }

    /** The catalog gave no answer: it may or may not have applied the request. */
    public static class NoAnswer extends IOException {

        private final boolean timedOut;

        NoAnswer(IOException cause) {
            super(cause.toString(), cause);
            this.timedOut = cause instanceof HttpTimeoutException;
        }

        /** The connection was made but no answer came within the read timeout (rather than no connection at all). */
        public boolean timedOut() {
            return timedOut;
        }
    }

    /** The status the catalog answered the create with. */
    public int publish(String eventId, String payloadJson) throws NoAnswer, InterruptedException {
        HttpRequest request = request("/publications")
                .header(IDEMPOTENCY_KEY, eventId)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(payloadJson))
                .build();
        return send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    /** OTHER_PAYLOAD: the catalog applied the event id from a body whose hash is not the one expected. */
    public enum Lookup { APPLIED, OTHER_PAYLOAD, NOT_APPLIED, UNKNOWN }

    /**
     * Asks whether the catalog applied {@code eventId} from the payload whose {@link PayloadDigest} is
     * {@code payloadSha256}; UNKNOWN when it cannot tell (down, slow, error). A publication the catalog holds without a
     * hash (made before it kept one) counts as APPLIED: there is nothing to compare.
     */
    public Lookup lookup(String eventId, String payloadSha256) throws InterruptedException {
        HttpResponse<String> response;
        try {
            response = send(request("/publications/" + eventId).GET().build(), HttpResponse.BodyHandlers.ofString());
        } catch (NoAnswer e) {
            return Lookup.UNKNOWN;
        }
        if (response.statusCode() == 404) {
            return Lookup.NOT_APPLIED;
        }
        if (response.statusCode() != 200) {
            return Lookup.UNKNOWN;
        }
        JsonNode stored;
        try {
            stored = json.readTree(response.body()).path("payloadSha256");
        } catch (JacksonException e) {
            return Lookup.UNKNOWN;
        }
        return stored.isString() && !stored.asString().equals(payloadSha256) ? Lookup.OTHER_PAYLOAD : Lookup.APPLIED;
    }

    /** False when no catalog URL is configured (and none runs in this process): every call would fail. */
    public boolean configured() {
        return baseUrl != null;
    }

    public URI baseUrl() {
        return baseUrl.get();
    }

    private <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> body) throws NoAnswer, InterruptedException {
        outsideTransaction.requireNoTransaction(request.uri());
        try {
            return http.send(request, body);
        } catch (IOException e) {
            throw new NoAnswer(e);
        }
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
