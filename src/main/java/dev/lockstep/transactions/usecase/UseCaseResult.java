package dev.lockstep.transactions.usecase;

import dev.lockstep.platform.AreaApi;
import org.springframework.http.HttpStatus;

/**
 * What a use case answers, stored for replay under its Idempotency-Key. {@code businessId} may name
 * the object it created; {@code processInstanceId} and {@code resultCode} go into the command record
 * for operators.
 */
@AreaApi
public record UseCaseResult(HttpStatus status, Object body, String businessId, String processInstanceId,
        String resultCode) {

    public static UseCaseResult ok(Object body, String processInstanceId, String resultCode) {
        return new UseCaseResult(HttpStatus.OK, body, null, processInstanceId, resultCode);
    }

    public static UseCaseResult created(Object body, String businessId, String resultCode) {
        return new UseCaseResult(HttpStatus.CREATED, body, businessId, null, resultCode);
    }
}
