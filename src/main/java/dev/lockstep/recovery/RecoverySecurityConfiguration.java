package dev.lockstep.recovery;

import dev.lockstep.security.Roles;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.web.SecurityFilterChain;

/**
 * Who may use the recovery API and console: DBAs act; auditors and admins read. HTTP Basic, as
 * for the rest of the API, stateless so no CSRF token is involved.
 */
@Configuration(proxyBeanMethods = false)
class RecoverySecurityConfiguration {

    @Bean
    @Order(10)
    SecurityFilterChain recoverySecurity(HttpSecurity http) throws Exception {
        http.securityMatcher("/api/recovery/**", "/console", "/console/**")
                .authorizeHttpRequests(requests -> requests
                        .requestMatchers(HttpMethod.GET, "/api/recovery/**", "/console", "/console/**")
                        .hasAnyRole(Roles.DBA, Roles.AUDITOR, Roles.ADMIN)
                        .anyRequest().hasRole(Roles.DBA))
                .httpBasic(Customizer.withDefaults())
                .csrf(csrf -> csrf.disable())
                .sessionManagement(session -> session.sessionCreationPolicy(SessionCreationPolicy.STATELESS));
        return http.build();
    }
}
