package dev.lockstep.recovery;

import org.springframework.http.HttpStatus;

/** A refused recovery request; {@code code} is the stable problem+json code clients match on. */
public class RecoveryException extends RuntimeException {

    private final HttpStatus status;
    private final String code;

    public RecoveryException(HttpStatus status, String code, String detail) {
        super(detail);
        this.status = status;
        this.code = code;
    }

    public HttpStatus status() {
        return status;
    }

    public String code() {
        return code;
    }
}
