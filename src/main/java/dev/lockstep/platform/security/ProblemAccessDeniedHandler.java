package dev.lockstep.platform.security;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.http.HttpStatus;
import org.springframework.security.access.AccessDeniedException;
import org.springframework.security.web.access.AccessDeniedHandler;
import org.springframework.security.web.csrf.CsrfException;

/** 403 for an authenticated caller whose roles do not cover the endpoint, as problem+json. */
final class ProblemAccessDeniedHandler implements AccessDeniedHandler {

    @Override
    public void handle(HttpServletRequest request, HttpServletResponse response, AccessDeniedException denied)
            throws IOException {
        if (denied instanceof CsrfException) {
            SecurityProblems.write(request, response, HttpStatus.FORBIDDEN, SecurityProblems.CSRF_TOKEN_INVALID,
                    "A browser request that changes state needs the console's CSRF token (header X-XSRF-TOKEN), and a"
                            + " request from another site is refused whatever its credentials.");
            return;
        }
        SecurityProblems.write(request, response, HttpStatus.FORBIDDEN, SecurityProblems.FORBIDDEN,
                "Your roles do not allow " + request.getMethod() + " " + request.getRequestURI() + ".");
    }
}
