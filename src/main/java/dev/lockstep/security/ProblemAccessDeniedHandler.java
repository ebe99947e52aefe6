package dev.lockstep.security;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.http.HttpStatus;
import org.springframework.security.access.AccessDeniedException;
import org.springframework.security.web.access.AccessDeniedHandler;

/** 403 for an authenticated caller whose roles do not cover the endpoint, as problem+json. */
final class ProblemAccessDeniedHandler implements AccessDeniedHandler {

    @Override
    public void handle(HttpServletRequest request, HttpServletResponse response, AccessDeniedException denied)
            throws IOException {
        SecurityProblems.write(request, response, HttpStatus.FORBIDDEN, SecurityProblems.FORBIDDEN,
                "Your roles do not allow " + request.getMethod() + " " + request.getRequestURI() + ".");
    }
}
