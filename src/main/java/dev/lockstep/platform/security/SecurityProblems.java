package dev.lockstep.platform.security;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.converter.json.JacksonJsonHttpMessageConverter;
import org.springframework.http.server.ServletServerHttpResponse;

/**
 * Writes the RFC 9457 bodies of security rejections. These happen in the filter chain, before Spring
 * MVC, so no controller advice can render them.
 */
public final class SecurityProblems {

    static final String UNAUTHENTICATED = "UNAUTHENTICATED";
    static final String FORBIDDEN = "FORBIDDEN";
    static final String CSRF_TOKEN_INVALID = "CSRF_TOKEN_INVALID";

    // The builder-based constructor registers Spring's ProblemDetail mixin (flat "code" property).
    private static final JacksonJsonHttpMessageConverter JSON = new JacksonJsonHttpMessageConverter();

    private SecurityProblems() {
    }

    public static void write(HttpServletRequest request, HttpServletResponse response, HttpStatus status, String code,
            String detail) throws IOException {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setInstance(URI.create(request.getRequestURI()));
        problem.setProperty("code", code);
        response.setStatus(status.value());
        JSON.write(problem, MediaType.APPLICATION_PROBLEM_JSON, new ServletServerHttpResponse(response));
    }
}
