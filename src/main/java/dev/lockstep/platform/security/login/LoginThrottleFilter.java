package dev.lockstep.platform.security.login;

import dev.lockstep.platform.security.SecurityProblems;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Takes the login throttle's tokens for a login attempt (HTTP Basic credentials, or the console's login form)
 * before any password is checked, and stops it when its user name or address is locked out: 429 problem+json
 * LOGIN_RATE_LIMITED with Retry-After. The tokens go back only when the request ends authenticated by a name and
 * password (as soon as that is decided, see {@link #authenticationDecided()}); a refusal, an error or anything else
 * keeps them. Requests without credentials, and bearer tokens
 * (unguessable, issued elsewhere), pass untouched.
 */
public final class LoginThrottleFilter extends OncePerRequestFilter {

    static final String CODE = "LOGIN_RATE_LIMITED";

    private static final String ATTEMPT = LoginThrottleFilter.class.getName() + ".attempt";

    private final LoginThrottle throttle;
    private final String loginProcessingUrl;

    public LoginThrottleFilter(LoginThrottle throttle, String loginProcessingUrl) {
        this.throttle = throttle;
        this.loginProcessingUrl = loginProcessingUrl;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        Optional<String> user = attemptedUser(request);
        if (user.isEmpty()) {
            chain.doFilter(request, response);
            return;
        }
        LoginThrottle.Admission admission = throttle.begin(user.get(), request.getRemoteAddr());
        if (admission.attempt() != null) {
            request.setAttribute(ATTEMPT, admission.attempt());
            try {
                chain.doFilter(request, response);
            } finally {
                admission.attempt().end(authenticatedByPassword());
            }
            return;
        }
        LoginThrottle.Lockout lockout = admission.lockout();
        long seconds = Math.max(1, (lockout.retryAfter().toMillis() + 999) / 1000);
        response.setHeader(HttpHeaders.RETRY_AFTER, Long.toString(seconds));
        SecurityProblems.write(request, response, HttpStatus.TOO_MANY_REQUESTS, CODE,
                "Too many failed logins " + (lockout.scope() == LoginThrottle.Scope.USER ? "for this user" : "from this address")
                        + "; no attempt is checked for " + seconds + " s. See docs/security.md.");
    }

    /**
     * Ends the request's login attempt as soon as the Basic filter let it through, so that a right password gives
     * its tokens back before the request's own work rather than holding them (and a user's or an address's
     * allowance of attempts in flight) for as long as the request runs. Goes right after BasicAuthenticationFilter;
     * failures never get here and are ended by {@link LoginThrottleFilter} itself.
     */
    public static Filter authenticationDecided() {
        return new OncePerRequestFilter() {
            @Override
            protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
                    throws ServletException, IOException {
                if (request.getAttribute(ATTEMPT) instanceof LoginThrottle.Attempt attempt) {
                    attempt.end(authenticatedByPassword());
                }
                chain.doFilter(request, response);
            }
        };
    }

    /**
     * Whether the chain authenticated this request by name and password (Basic or the login form; the security
     * context is still this request's here, inside the context holder's filter). A failed check clears it.
     */
    private static boolean authenticatedByPassword() {
        Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
        return authentication instanceof UsernamePasswordAuthenticationToken && authentication.isAuthenticated();
    }

    private Optional<String> attemptedUser(HttpServletRequest request) {
        String authorization = request.getHeader(HttpHeaders.AUTHORIZATION);
        if (authorization != null && authorization.regionMatches(true, 0, "Basic ", 0, 6)) {
            return Optional.of(basicUser(authorization.substring(6).trim()));
        }
        if ("POST".equals(request.getMethod()) && loginProcessingUrl.equals(request.getServletPath())) {
            return Optional.ofNullable(request.getParameter("username")).or(() -> Optional.of(""));
        }
        return Optional.empty();
    }

    /** The name part of Basic credentials; undecodable ones still count against the address. */
    private static String basicUser(String encoded) {
        try {
            String decoded = new String(Base64.getDecoder().decode(encoded), StandardCharsets.UTF_8);
            int colon = decoded.indexOf(':');
            return colon < 0 ? "" : decoded.substring(0, colon);
        } catch (IllegalArgumentException e) {
            return "";
        }
    }
}
