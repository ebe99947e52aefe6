package dev.lockstep.platform.security;

import dev.lockstep.platform.StartupCheckFailure;
import dev.lockstep.platform.security.browser.BrowserSession;
import dev.lockstep.platform.security.login.LoginThrottle;
import dev.lockstep.platform.security.login.LoginThrottleFilter;
import jakarta.servlet.DispatcherType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.observation.SecurityObservationSettings;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;
import org.springframework.security.crypto.password.DelegatingPasswordEncoder;
import org.springframework.security.crypto.password.PasswordEncoder;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.authentication.UsernamePasswordAuthenticationFilter;
import org.springframework.security.web.authentication.www.BasicAuthenticationFilter;
import org.springframework.security.web.firewall.HttpFirewall;
import org.springframework.security.web.firewall.RequestRejectedHandler;
import org.springframework.security.web.firewall.StrictHttpFirewall;

/**
 * Who may call what. API clients are stateless: every request carries its credentials (HTTP Basic or a
 * bearer token) and needs no CSRF token. The DBA console is a browser application with a form login and a
 * session cookie, so its state-changing calls carry a CSRF token ({@link BrowserSession}).
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(LockstepSecurityProperties.class)
public class SecurityConfiguration {

    static final String VERIFIED_PASSWORD_TTL = "lockstep.security.verified-password-ttl";

    static final String REALM = "lockstep";

    @Bean
    SecurityFilterChain securityFilterChain(HttpSecurity http, ObjectProvider<UserDetailsService> users,
            ObjectProvider<JwtDecoder> jwtDecoder, LockstepSecurityProperties properties, LoginThrottle loginThrottle) {
        boolean basic = users.getIfAvailable() != null;
        JwtDecoder decoder = jwtDecoder.getIfAvailable();
        if (!basic && decoder == null) {
            throw new StartupCheckFailure("lockstep.security.users",
                    "is empty and lockstep.security.jwt is not set, so in lockstep.mode=external nobody could log in"
                            + " (the demo users exist only in embedded mode).",
                    "configure users (lockstep.security.users[0].name, .password as {bcrypt}..., .roles, .groups;"
                            + " env LOCKSTEP_SECURITY_USERS_0_NAME, ...) or bearer tokens"
                            + " (lockstep.security.jwt.issuer-uri, .jwk-set-uri or .public-key-location). See docs/security.md.");
        }
        List<String> challenges = new ArrayList<>();
        if (basic) {
            challenges.add("Basic realm=\"" + REALM + "\"");
        }
        if (decoder != null) {
            challenges.add("Bearer realm=\"" + REALM + "\"");
        }
        ProblemAuthenticationEntryPoint entryPoint = new ProblemAuthenticationEntryPoint(challenges);
        ProblemAccessDeniedHandler accessDenied = new ProblemAccessDeniedHandler();

        // Sessions: the default policy, under which only the console's form login opens one (Basic and
        // Bearer keep their authentication in the request). Setting any policy explicitly would add a
        // filter that stores every Basic login in a new session.
        http.csrf(BrowserSession::csrf)
                .headers(BrowserSession::headers)
                .authorizeHttpRequests(requests -> requests
                        // An error page renders the outcome of a request that already passed these rules.
                        .dispatcherTypeMatchers(DispatcherType.ERROR).permitAll()
                        .requestMatchers("/actuator/health/**", "/actuator/info").permitAll()
                        .requestMatchers(HttpMethod.GET, BrowserSession.PUBLIC_PAGE_FILES).permitAll()
                        .requestMatchers("/actuator/**").hasRole(Roles.ADMIN)
                        .requestMatchers(HttpMethod.GET, "/api/admin/outbox/**").hasAnyRole(Roles.ADMIN, Roles.AUDITOR)
                        .requestMatchers(HttpMethod.GET, "/api/admin/reconciliation/incidents/**")
                                .hasAnyRole(Roles.ADMIN, Roles.DBA, Roles.AUDITOR)
                        .requestMatchers("/api/admin/reconciliation/incidents/**").hasAnyRole(Roles.ADMIN, Roles.DBA)
                        .requestMatchers("/api/admin/**").hasRole(Roles.ADMIN)
                        // approval definitions: admins change them (four-eyes), auditors read them (docs/security.md)
                        .requestMatchers(HttpMethod.GET, "/api/business-types/**").hasAnyRole(Roles.ADMIN, Roles.AUDITOR)
                        .requestMatchers("/api/business-types/**").hasRole(Roles.ADMIN)
                        .requestMatchers(HttpMethod.GET, "/api/recovery/audit/**").hasAnyRole(Roles.DBA, Roles.AUDITOR)
                        .requestMatchers("/api/recovery/**", "/console/**").hasRole(Roles.DBA)
                        // evidence bundles and checkpoints (docs/compliance.md, "Evidence for auditors")
                        .requestMatchers("/api/audit/**").hasAnyRole(Roles.AUDITOR, Roles.ADMIN)
                        .anyRequest().authenticated())
                .exceptionHandling(exceptions -> exceptions
                        .authenticationEntryPoint(BrowserSession.entryPoint(entryPoint))
                        .accessDeniedHandler(accessDenied));
        BrowserSession.issueTokenCookie(http);
        http.addFilterBefore(new LoginThrottleFilter(loginThrottle, BrowserSession.LOGIN_PROCESSING),
                UsernamePasswordAuthenticationFilter.class);
        http.addFilterAfter(LoginThrottleFilter.authenticationDecided(), BasicAuthenticationFilter.class);
        if (basic) {
            http.httpBasic(httpBasic -> httpBasic.realmName(REALM).authenticationEntryPoint(entryPoint));
            BrowserSession.configure(http);
        }
        if (decoder != null) {
            http.oauth2ResourceServer(resourceServer -> resourceServer
                    .authenticationEntryPoint(entryPoint)
                    .accessDeniedHandler(accessDenied)
                    .jwt(jwt -> jwt.decoder(decoder).jwtAuthenticationConverter(new JwtCallerConverter(properties.jwt().userIdClaim(),
                            properties.users().stream().map(LockstepSecurityProperties.User::name).collect(Collectors.toSet())))));
        }
        return http.build();
    }

    /**
     * Spring Security observes every filter of the chain, every authentication and every authorization of
     * every request (timers, counters and events through Micrometer): about a fifth of the request threads'
     * CPU on a todo page (docs/performance.md). Nothing reads those meters; the request itself is still
     * timed by {@code http_server_requests_seconds}, and lockouts and refused logins by the login throttle.
     */
    @Bean
    SecurityObservationSettings noSecurityObservations() {
        return SecurityObservationSettings.noObservations();
    }

    /**
     * Spring Security's default firewall, refusing the same header characters with a loop instead of a regular expression
     * matched on every read of a header ({@link HeaderCharacters}); Spring Security takes an {@link HttpFirewall} bean.
     */
    @Bean
    HttpFirewall httpFirewall() {
        StrictHttpFirewall firewall = new StrictHttpFirewall();
        firewall.setAllowedHeaderNames(HeaderCharacters::allowedName);
        firewall.setAllowedHeaderValues(HeaderCharacters::allowedValue);
        return firewall;
    }

    /**
     * A request the firewall refuses is answered as problem+json here, not by Spring Boot's error page: a header the
     * service reads is refused while the request runs, and the error page, reading the same header again, was refused
     * in turn with an empty 400. The detail does not repeat the refused text, which may be a credential.
     */
    @Bean
    RequestRejectedHandler requestRejectedHandler() {
        return (request, response, rejected) -> {
            if (!response.isCommitted()) {
                SecurityProblems.write(request, response, HttpStatus.BAD_REQUEST, "BAD_REQUEST", "The request was refused"
                        + " before it was handled: its path is not in normal form, or a header or parameter holds a"
                        + " character that is not allowed (a control character, or a code point with no character).");
            }
        };
    }

    /**
     * Only the encodings {@link ConfiguredUsers} accepts, so a password that passed the startup check can match; a
     * verified password is remembered for {@code lockstep.security.verified-password-ttl} ({@link VerifiedPasswords}).
     */
    @Bean
    PasswordEncoder passwordEncoder(@Value("${" + VERIFIED_PASSWORD_TTL + ":60s}") Duration verifiedPasswordTtl) {
        if (verifiedPasswordTtl.isNegative() || verifiedPasswordTtl.compareTo(Duration.ofHours(1)) > 0) {
            throw new StartupCheckFailure(VERIFIED_PASSWORD_TTL, "is " + verifiedPasswordTtl + "; it must be between 0 and 1h.",
                    "set a short duration such as 60s (how long a verified Basic password is remembered), or 0 to verify"
                            + " every request with bcrypt.");
        }
        return new VerifiedPasswords(new DelegatingPasswordEncoder("bcrypt", Map.of(
                "bcrypt", new BCryptPasswordEncoder(),
                "noop", new PlainTextForTestRigs())), verifiedPasswordTtl);
    }
}
