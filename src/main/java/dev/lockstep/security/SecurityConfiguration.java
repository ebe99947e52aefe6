package dev.lockstep.security;

import dev.lockstep.platform.StartupCheckFailure;
import jakarta.servlet.DispatcherType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configurers.AbstractHttpConfigurer;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;
import org.springframework.security.crypto.password.DelegatingPasswordEncoder;
import org.springframework.security.crypto.password.NoOpPasswordEncoder;
import org.springframework.security.crypto.password.PasswordEncoder;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.web.SecurityFilterChain;

/**
 * Who may call what. Stateless on purpose: every request carries its credentials (HTTP Basic or a
 * bearer token), there is no session, and therefore no cookie a cross-site request could ride on,
 * which is why CSRF protection is off. The DBA console is a static page that calls the API with fetch
 * and Basic credentials, so the same holds for it.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(LockstepSecurityProperties.class)
public class SecurityConfiguration {

    static final String REALM = "lockstep";

    @Bean
    SecurityFilterChain securityFilterChain(HttpSecurity http, ObjectProvider<UserDetailsService> users,
            ObjectProvider<JwtDecoder> jwtDecoder, LockstepSecurityProperties properties) {
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

        http.csrf(AbstractHttpConfigurer::disable)
                .sessionManagement(session -> session.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
                .authorizeHttpRequests(requests -> requests
                        // An error page renders the outcome of a request that already passed these rules.
                        .dispatcherTypeMatchers(DispatcherType.ERROR).permitAll()
                        .requestMatchers("/actuator/health/**", "/actuator/info").permitAll()
                        .requestMatchers("/actuator/**").hasRole(Roles.ADMIN)
                        .requestMatchers(HttpMethod.GET, "/api/admin/outbox/**").hasAnyRole(Roles.ADMIN, Roles.AUDITOR)
                        .requestMatchers(HttpMethod.GET, "/api/admin/reconciliation/incidents/**")
                                .hasAnyRole(Roles.ADMIN, Roles.DBA, Roles.AUDITOR)
                        .requestMatchers("/api/admin/reconciliation/incidents/**").hasAnyRole(Roles.ADMIN, Roles.DBA)
                        .requestMatchers("/api/admin/**").hasRole(Roles.ADMIN)
                        .requestMatchers(HttpMethod.GET, "/api/recovery/audit/**").hasAnyRole(Roles.DBA, Roles.AUDITOR)
                        .requestMatchers("/api/recovery/**", "/console/**").hasRole(Roles.DBA)
                        .anyRequest().authenticated())
                .exceptionHandling(exceptions -> exceptions
                        .authenticationEntryPoint(entryPoint)
                        .accessDeniedHandler(accessDenied));
        if (basic) {
            http.httpBasic(httpBasic -> httpBasic.realmName(REALM).authenticationEntryPoint(entryPoint));
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

    /** Only the encodings {@link ConfiguredUsers} accepts, so a password that passed the startup check can match. */
    @Bean
    PasswordEncoder passwordEncoder() {
        return new DelegatingPasswordEncoder("bcrypt", Map.of(
                "bcrypt", new BCryptPasswordEncoder(),
                "noop", NoOpPasswordEncoder.getInstance()));
    }
}
