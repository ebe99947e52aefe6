package dev.lockstep.platform.web;

import dev.lockstep.platform.AreaApi;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.springframework.http.HttpStatus;

/**
 * A request the service refuses, with the HTTP status and the stable {@code code} clients can
 * branch on. Thrown inside a use case it also rolls the whole XA transaction back.
 */
@AreaApi
public class ApiException extends RuntimeException {

    private final HttpStatus status;
    private final String code;
    private final Duration retryAfter;
    private final Map<String, Object> properties = new LinkedHashMap<>();

    public ApiException(HttpStatus status, String code, String detail) {
        this(status, code, detail, null);
    }

    /** A refusal the client may retry after {@code retryAfter} (sent as the Retry-After header). */
    public ApiException(HttpStatus status, String code, String detail, Duration retryAfter) {
        super(detail);
        this.status = status;
        this.code = code;
        this.retryAfter = retryAfter;
    }

    public static ApiException retryLater(String code, String detail) {
        return new ApiException(HttpStatus.SERVICE_UNAVAILABLE, code, detail, Duration.ofSeconds(1));
    }

    public static ApiException notFound(String code, String detail) {
        return new ApiException(HttpStatus.NOT_FOUND, code, detail);
    }

    public static ApiException conflict(String code, String detail) {
        return new ApiException(HttpStatus.CONFLICT, code, detail);
    }

    public static ApiException forbidden(String code, String detail) {
        return new ApiException(HttpStatus.FORBIDDEN, code, detail);
    }

    public static ApiException badRequest(String code, String detail) {
        return new ApiException(HttpStatus.BAD_REQUEST, code, detail);
    }

    /** Adds a member to the problem detail (evidence a client or operator can act on). */
    public ApiException with(String name, Object value) {
        properties.put(name, value);
        return this;
    }

    public Map<String, Object> properties() {
        return Map.copyOf(properties);
    }

    public HttpStatus status() {
        return status;
    }

    public String code() {
        return code;
    }

    public Optional<Duration> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }
}
