package dev.lockstep.recovery;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * problem+json for the recovery API, each with a stable {@code code}. Ahead of the service-wide
 * ProblemHandler, whose catch-all would otherwise answer a refused proposal with a 500.
 */
@RestControllerAdvice(assignableTypes = RecoveryController.class)
@Order(Ordered.HIGHEST_PRECEDENCE)
class RecoveryProblems {

    @ExceptionHandler(RecoveryException.class)
    ProblemDetail refused(RecoveryException e) {
        return problem(e.status(), e.code(), e.getMessage());
    }

    @ExceptionHandler(HttpMessageNotReadableException.class)
    ProblemDetail unreadable(HttpMessageNotReadableException e) {
        return problem(HttpStatus.BAD_REQUEST, "RECOVERY_BAD_REQUEST", "the request body is not a valid proposal: "
                + e.getMostSpecificCause().getMessage());
    }

    private static ProblemDetail problem(HttpStatus status, String code, String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setTitle(code);
        problem.setProperty("code", code);
        return problem;
    }
}
