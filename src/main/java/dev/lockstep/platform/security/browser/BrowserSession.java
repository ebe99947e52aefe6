package dev.lockstep.platform.security.browser;

import jakarta.servlet.http.HttpServletRequest;
import java.util.Set;
import org.springframework.http.HttpHeaders;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configurers.CsrfConfigurer;
import org.springframework.security.config.annotation.web.configurers.HeadersConfigurer;
import org.springframework.security.web.AuthenticationEntryPoint;
import org.springframework.security.web.authentication.LoginUrlAuthenticationEntryPoint;
import org.springframework.security.web.csrf.CookieCsrfTokenRepository;
import org.springframework.security.web.csrf.CsrfFilter;
import org.springframework.security.web.csrf.CsrfTokenRequestAttributeHandler;
import org.springframework.security.web.header.writers.ReferrerPolicyHeaderWriter.ReferrerPolicy;
import org.springframework.security.web.savedrequest.NullRequestCache;

/**
 * The DBA console as a browser application: a form login that opens a session (cookie HttpOnly,
 * SameSite=Strict, see application.yml), a CSRF token on every state-changing call the console makes,
 * and headers that keep other sites from framing the page or running script in it.
 *
 * <p>API clients are not browsers: a request that carries its own {@code Authorization} header (Basic or
 * Bearer) needs no CSRF token, because another site can neither read nor forge that header. The one
 * exception is a browser that cached Basic credentials and attaches them to a cross-site request, so any
 * request a browser marks as coming from another site ({@code Sec-Fetch-Site}, or an {@code Origin} that
 * is not this service's) needs the token whatever its credentials.
 */
public final class BrowserSession {

    public static final String LOGIN_PAGE = "/console/login.html";
    public static final String LOGIN_PROCESSING = "/login";
    public static final String[] PUBLIC_PAGE_FILES = {LOGIN_PAGE, "/console/login.js", "/console/console.css"};
    static final String CONTENT_SECURITY_POLICY = "default-src 'self'; script-src 'self'; style-src 'self';"
            + " img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none';"
            + " object-src 'none'";
    private static final Set<String> SAFE_METHODS = Set.of("GET", "HEAD", "OPTIONS", "TRACE");
    private static final Set<String> OWN_SITE_FETCHES = Set.of("same-origin", "none");

    private BrowserSession() {
    }

    /** Form login, logout, the CSRF rules and the security headers, added to the one filter chain. */
    public static void configure(HttpSecurity http) {
        http.formLogin(form -> form.loginPage(LOGIN_PAGE).loginProcessingUrl(LOGIN_PROCESSING)
                        .defaultSuccessUrl("/console/", true).failureUrl(LOGIN_PAGE + "?error"))
                .logout(logout -> logout.logoutUrl("/logout").logoutSuccessUrl(LOGIN_PAGE + "?logout"))
                // after login the console always opens itself; saving requests would open sessions for API calls
                .requestCache(cache -> cache.requestCache(new NullRequestCache()));
    }

    public static void csrf(CsrfConfigurer<HttpSecurity> csrf) {
        CookieCsrfTokenRepository tokens = CookieCsrfTokenRepository.withHttpOnlyFalse();
        tokens.setCookieCustomizer(cookie -> cookie.sameSite("Strict").path("/"));
        // The console reads the token from the cookie and echoes it in X-XSRF-TOKEN: plain, not XOR-masked.
        csrf.csrfTokenRepository(tokens)
                .csrfTokenRequestHandler(new CsrfTokenRequestAttributeHandler())
                .requireCsrfProtectionMatcher(BrowserSession::needsCsrfToken);
    }

    /** Hands the console its token cookie: it is created lazily, and static pages never ask for it. */
    public static void issueTokenCookie(HttpSecurity http) {
        http.addFilterAfter(new CsrfCookieFilter(), CsrfFilter.class);
    }

    public static void headers(HeadersConfigurer<HttpSecurity> headers) {
        // Spring Security's defaults stay: Cache-Control no-store, X-Content-Type-Options, X-Frame-Options DENY.
        headers.contentSecurityPolicy(csp -> csp.policyDirectives(CONTENT_SECURITY_POLICY))
                .referrerPolicy(referrer -> referrer.policy(ReferrerPolicy.NO_REFERRER));
    }

    /** A console page opened without a session goes to the login form; everything else gets a 401 problem. */
    public static AuthenticationEntryPoint entryPoint(AuthenticationEntryPoint problems) {
        LoginUrlAuthenticationEntryPoint loginPage = new LoginUrlAuthenticationEntryPoint(LOGIN_PAGE);
        return (request, response, failure) -> {
            if (isConsolePage(request)) {
                loginPage.commence(request, response, failure);
            } else {
                problems.commence(request, response, failure);
            }
        };
    }

    static boolean needsCsrfToken(HttpServletRequest request) {
        if (SAFE_METHODS.contains(request.getMethod())) {
            return false;
        }
        return request.getHeader(HttpHeaders.AUTHORIZATION) == null || fromAnotherSite(request);
    }

    static boolean fromAnotherSite(HttpServletRequest request) {
        String fetchSite = request.getHeader("Sec-Fetch-Site");
        if (fetchSite != null && !OWN_SITE_FETCHES.contains(fetchSite)) {
            return true;
        }
        String origin = request.getHeader(HttpHeaders.ORIGIN);
        return origin != null && !origin.equalsIgnoreCase(ownOrigin(request));
    }

    private static String ownOrigin(HttpServletRequest request) {
        int port = request.getServerPort();
        boolean defaultPort = ("http".equals(request.getScheme()) && port == 80)
                || ("https".equals(request.getScheme()) && port == 443);
        return request.getScheme() + "://" + request.getServerName() + (defaultPort ? "" : ":" + port);
    }

    private static boolean isConsolePage(HttpServletRequest request) {
        String path = request.getRequestURI().substring(request.getContextPath().length());
        return "GET".equals(request.getMethod()) && (path.equals("/console") || path.startsWith("/console/"));
    }
}
