package dev.lockstep.platform.security;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.security.authentication.InsufficientAuthenticationException;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.oauth2.core.OAuth2AuthenticationException;
import org.springframework.security.web.AuthenticationEntryPoint;

/**
 * 401 for a request without acceptable credentials: one {@code WWW-Authenticate} challenge per
 * enabled scheme (so browsers still offer their Basic login dialog) and a problem+json body.
 */
final class ProblemAuthenticationEntryPoint implements AuthenticationEntryPoint {

    private final List<String> challenges;

    ProblemAuthenticationEntryPoint(List<String> challenges) {
        this.challenges = List.copyOf(challenges);
    }

    @Override
    public void commence(HttpServletRequest request, HttpServletResponse response, AuthenticationException failure)
            throws IOException {
        challenges.forEach(challenge -> response.addHeader(HttpHeaders.WWW_AUTHENTICATE, challenge));
        SecurityProblems.write(request, response, HttpStatus.UNAUTHORIZED, SecurityProblems.UNAUTHENTICATED,
                detail(failure));
    }

    private static String detail(AuthenticationException failure) {
        if (failure instanceof InsufficientAuthenticationException) {
            return "This endpoint needs credentials.";
        }
        if (failure instanceof OAuth2AuthenticationException oauth2 && oauth2.getError().getDescription() != null) {
            // The token's own fault (expired, wrong audience, bad signature) tells the client what to fix.
            return "The bearer token was not accepted: " + oauth2.getError().getDescription();
        }
        return "The credentials were not accepted.";
    }
}
