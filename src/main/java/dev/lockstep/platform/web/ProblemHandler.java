package dev.lockstep.platform.web;

import dev.lockstep.platform.AreaApi;
import dev.lockstep.platform.ConnectionLoss;
import java.sql.SQLTransientConnectionException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.activiti.engine.ActivitiObjectNotFoundException;
import org.activiti.engine.ActivitiOptimisticLockingException;
import org.activiti.engine.ActivitiTaskAlreadyClaimedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.dao.OptimisticLockingFailureException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.transaction.HeuristicCompletionException;
import org.springframework.transaction.TransactionException;
import org.springframework.validation.FieldError;
import org.springframework.web.bind.MethodArgumentNotValidException;
import org.springframework.web.bind.MissingRequestHeaderException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.method.annotation.HandlerMethodValidationException;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * Every error leaves as RFC 9457 problem+json with a stable {@code code}; nothing escapes as a bare
 * 500. Spring MVC's own exceptions get codes here too, so clients never parse a message. Last of the
 * advices: a capability's own advice answers its exceptions first (the order must not depend on how
 * the package names happen to sort).
 */
@RestControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
@AreaApi
public class ProblemHandler extends ResponseEntityExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(ProblemHandler.class);

    private final List<ProblemTranslator> translators;

    ProblemHandler(List<ProblemTranslator> translators) {
        this.translators = translators;
    }

    @ExceptionHandler(ApiException.class)
    ResponseEntity<Object> refused(ApiException e) {
        ResponseEntity.BodyBuilder response = ResponseEntity.status(e.status()).contentType(MediaType.APPLICATION_PROBLEM_JSON);
        e.retryAfter().ifPresent(after -> response.header(HttpHeaders.RETRY_AFTER, Long.toString(Math.max(1, after.toSeconds()))));
        ProblemDetail problem = ProblemResponses.problem(e.status(), e.code(), e.getMessage());
        e.properties().forEach(problem::setProperty);
        return response.body(problem);
    }

    @ExceptionHandler(ActivitiObjectNotFoundException.class)
    ResponseEntity<Object> engineObjectGone(ActivitiObjectNotFoundException e) {
        return conflict("TASK_ALREADY_COMPLETED", "The task no longer exists: another request completed or removed it.");
    }

    @ExceptionHandler(ActivitiTaskAlreadyClaimedException.class)
    ResponseEntity<Object> claimedByOther(ActivitiTaskAlreadyClaimedException e) {
        return conflict("TASK_CLAIMED_BY_OTHER", "The task is already claimed by " + e.getTaskAssignee() + ".");
    }

    @ExceptionHandler({ActivitiOptimisticLockingException.class, OptimisticLockingFailureException.class})
    ResponseEntity<Object> concurrentChange(RuntimeException e) {
        return conflict("CONCURRENT_MODIFICATION", "Another request changed the same data at the same time; reload and retry.");
    }

    @ExceptionHandler(DataIntegrityViolationException.class)
    ResponseEntity<Object> constraint(DataIntegrityViolationException e) {
        log.info("request refused by a database constraint: {}", e.getMostSpecificCause().getMessage());
        return conflict("CONSTRAINT_VIOLATION", "The change conflicts with data already stored; nothing was written.");
    }

    /**
     * A branch's fate is unknown or differs from its sibling's (e.g. a database died mid-commit): the
     * client must not be told it succeeded, nor that nothing happened. Recovery or a DBA finishes it.
     */
    @ExceptionHandler(HeuristicCompletionException.class)
    ResponseEntity<Object> outcomeUnknown(HeuristicCompletionException e) {
        if (e.getOutcomeState() == HeuristicCompletionException.STATE_ROLLED_BACK) {
            return notCommitted(e);
        }
        log.error("global transaction ended with a heuristic outcome ({}): {}",
                HeuristicCompletionException.getStateString(e.getOutcomeState()), e.getMostSpecificCause().toString());
        return ProblemResponses.response(ProblemResponses.problem(HttpStatus.INTERNAL_SERVER_ERROR,
                "TRANSACTION_OUTCOME_UNKNOWN", "The change may be committed in one database and not in the other ("
                        + HeuristicCompletionException.getStateString(e.getOutcomeState()) + "). Transaction recovery and"
                        + " the in-doubt monitor resolve it; read the application before acting. A retry with the same"
                        + " Idempotency-Key answers 409 TRANSACTION_OUTCOME_BEING_RESOLVED, never a stored success."));
    }

    /** The global transaction did not commit (a branch refused to prepare, a timeout): nothing was written. */
    @ExceptionHandler(TransactionException.class)
    ResponseEntity<Object> notCommitted(TransactionException e) {
        // a local transaction (the business-only pool) that found no connection fails at its begin
        if (poolExhausted(e)) {
            return databaseBusy(e);
        }
        if (ConnectionLoss.in(e)) {
            return databaseUnavailable(e);
        }
        log.warn("global transaction rolled back: {}", e.getMostSpecificCause().toString());
        return conflict("TRANSACTION_ROLLED_BACK",
                "The databases did not commit the change (" + e.getMostSpecificCause().getClass().getSimpleName()
                        + "); neither database holds any part of it. Retry with the same Idempotency-Key.");
    }

    @ExceptionHandler(Exception.class)
    ResponseEntity<Object> unexpected(Exception e) {
        for (ProblemTranslator translator : translators) {
            Optional<ApiException> known = translator.translate(e);
            if (known.isPresent()) {
                return refused(known.get());
            }
        }
        if (poolExhausted(e)) {
            return databaseBusy(e);
        }
        if (ConnectionLoss.in(e)) {
            return databaseUnavailable(e);
        }
        log.error("unexpected error", e);
        return ProblemResponses.response(ProblemResponses.problem(HttpStatus.INTERNAL_SERVER_ERROR, "INTERNAL_ERROR",
                "An unexpected error occurred; the transaction was rolled back."));
    }

    @Override
    protected ResponseEntity<Object> handleMethodArgumentNotValid(MethodArgumentNotValidException e, HttpHeaders headers,
            HttpStatusCode status, WebRequest request) {
        return validationFailed(e.getBindingResult().getFieldErrors().stream()
                .map(ProblemHandler::fieldError)
                .toList());
    }

    private static ResponseEntity<Object> validationFailed(List<Map<String, String>> errors) {
        ProblemDetail problem = ProblemResponses.problem(HttpStatus.BAD_REQUEST, "VALIDATION_FAILED",
                "Invalid request: " + String.join(", ", errors.stream().map(m -> m.get("field") + " " + m.get("message")).toList()));
        problem.setProperty("errors", errors);
        return ProblemResponses.response(problem);
    }

    @Override
    protected ResponseEntity<Object> handleHandlerMethodValidationException(HandlerMethodValidationException e,
            HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        return validationFailed(e.getParameterValidationResults().stream()
                .flatMap(result -> result.getResolvableErrors().stream().map(error -> Map.of(
                        "field", String.valueOf(result.getMethodParameter().getParameterName()),
                        "message", String.valueOf(error.getDefaultMessage()))))
                .toList());
    }

    @Override
    protected ResponseEntity<Object> handleHttpMessageNotReadable(HttpMessageNotReadableException e, HttpHeaders headers,
            HttpStatusCode status, WebRequest request) {
        var controlCharacter = RequestBodyErrors.controlCharacter(e);
        if (controlCharacter.isPresent()) {
            return validationFailed(List.of(Map.of("field", controlCharacter.get().field(),
                    "message", controlCharacter.get().message())));
        }
        return ProblemResponses.response(ProblemResponses.problem(HttpStatus.BAD_REQUEST, "MALFORMED_REQUEST",
                "The request body is not valid JSON for this endpoint: " + RequestBodyErrors.describe(e)));
    }

    @Override
    protected ResponseEntity<Object> handleExceptionInternal(Exception e, Object body, HttpHeaders headers,
            HttpStatusCode status, WebRequest request) {
        String code = e instanceof MissingRequestHeaderException ? "MISSING_HEADER"
                : e instanceof MethodArgumentTypeMismatchException ? "INVALID_PARAMETER"
                : HttpStatus.valueOf(status.value()).name();
        String detail = e instanceof MissingRequestHeaderException missing
                ? "The header " + missing.getHeaderName() + " is required."
                : body instanceof ProblemDetail given && given.getDetail() != null ? given.getDetail() : e.getMessage();
        return ResponseEntity.status(status).headers(headers).contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(ProblemResponses.problem(status, code, detail));
    }

    private ResponseEntity<Object> databaseUnavailable(Exception e) {
        log.warn("a database connection failed inside the request: {} ({})", e, NestedExceptionUtils.getMostSpecificCause(e).toString());
        return refused(ApiException.retryLater("DATABASE_UNAVAILABLE", "A database connection failed before the change could commit"
                + " (network or server down); the transaction was rolled back. Retry later with the same Idempotency-Key."));
    }

    private ResponseEntity<Object> databaseBusy(Exception e) {
        log.warn("no database connection within the borrow timeout: {}", e.toString());
        return refused(ApiException.retryLater("DATABASE_BUSY", "Every connection to a database is in use and none came free in time;"
                + " nothing was written. Retry later with the same Idempotency-Key."));
    }

    /**
     * Both pools report no free connection as an {@code SQLTransientConnectionException}, wherever in the engine's or
     * Hibernate's wrapping it surfaces (the XA pools through {@code XaPool}); HikariCP (the business-only pool) gives it
     * the SQLState of the last failed connection attempt when the database, not the pool, was the problem (then it
     * is a connection loss, {@link ConnectionLoss}).
     */
    private static boolean poolExhausted(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof SQLTransientConnectionException timeout && !ConnectionLoss.isConnectionState(timeout.getSQLState())) {
                return true;
            }
        }
        return false;
    }


    private static Map<String, String> fieldError(FieldError error) {
        return Map.of("field", error.getField(), "message", String.valueOf(error.getDefaultMessage()));
    }

    private static ResponseEntity<Object> conflict(String code, String detail) {
        return ProblemResponses.response(ProblemResponses.problem(HttpStatus.CONFLICT, code, detail));
    }
}
