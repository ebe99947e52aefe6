package dev.lockstep.delivery;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * The asset catalog over HTTP, as the publisher sees it: a create keyed by the event id, and a lookup
 * of what became of an event id. Every call is refused inside a transaction
 * ({@link RemoteCallOutsideTransaction}).
 */
public class CatalogClient {

    public static final String IDEMPOTENCY_KEY = "Idempotency-Key";

    private final Supplier<URI> baseUrl;
    private final String token;
    private final Duration readTimeout;
    private final HttpClient http;
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
        return send(request);
    }

    public enum Lookup { APPLIED, NOT_APPLIED, UNKNOWN }

    /** Asks whether the catalog applied {@code eventId}; UNKNOWN when it cannot tell (down, slow, error). */
    public Lookup lookup(String eventId) throws InterruptedException {
        try {
            int status = send(request("/publications/" + eventId).GET().build());
            return status == 200 ? Lookup.APPLIED : status == 404 ? Lookup.NOT_APPLIED : Lookup.UNKNOWN;
        } catch (NoAnswer e) {
            return Lookup.UNKNOWN;
        }
    }

    /** False when no catalog URL is configured (and none runs in this process): every call would fail. */
    public boolean configured() {
        return baseUrl != null;
    }

    public URI baseUrl() {
        return baseUrl.get();
    }

    private int send(HttpRequest request) throws NoAnswer, InterruptedException {
        outsideTransaction.requireNoTransaction(request.uri());
        try {
            return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
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
