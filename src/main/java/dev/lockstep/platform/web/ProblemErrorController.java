package dev.lockstep.platform.web;

import io.swagger.v3.oas.annotations.Hidden;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import java.net.URI;
import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Errors that never reach a controller (the servlet container refusing a URL, Spring Security's firewall
 * refusing a path such as {@code /api/tasks/../x}) are forwarded to {@code /error}. They leave as
 * problem+json with a code (the status name, e.g. {@code BAD_REQUEST}) instead of Spring Boot's own
 * JSON error body.
 */
@Hidden
@RestController
class ProblemErrorController implements ErrorController {

    @RequestMapping("${server.error.path:/error}")
    ResponseEntity<Object> error(HttpServletRequest request) {
        // no status: /error was asked for directly, there is nothing to report
        HttpStatus status = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE) instanceof Integer code
                ? HttpStatus.resolve(code) : HttpStatus.NOT_FOUND;
        if (status == null) {
            status = HttpStatus.INTERNAL_SERVER_ERROR;
        }
        ProblemDetail problem = ProblemResponses.problem(status, status.name(), status.is5xxServerError()
                ? "An unexpected error occurred." : "The request was not accepted: " + status.getReasonPhrase() + ".");
        if (request.getAttribute(RequestDispatcher.ERROR_REQUEST_URI) instanceof String uri) {
            // echoed for orientation only, with anything that could not stand in a URI replaced
            problem.setInstance(URI.create(uri.replaceAll("[^A-Za-z0-9/._~-]", "_")));
        }
        return ProblemResponses.response(problem);
    }
}
