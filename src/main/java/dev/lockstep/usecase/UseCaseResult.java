package dev.lockstep.idempotency;

import org.springframework.http.HttpStatus;

/**
 * The result of a command, stored for replay. {@code businessId} may name the object the command
 * created; {@code processInstanceId} and {@code resultCode} go into the command row for operators.
 */
public record CommandOutcome(HttpStatus status, Object body, String businessId, String processInstanceId,
        String resultCode) {
}
