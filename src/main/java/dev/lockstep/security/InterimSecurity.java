package dev.lockstep.security;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/** Interim: replaced by the full security configuration (demo users only in embedded mode, external users, JWT). */
@Configuration(proxyBeanMethods = false)
class InterimSecurity {

    @Bean
    SecurityFilterChain api(HttpSecurity http) throws Exception {
        return http.csrf(csrf -> csrf.disable())
                .sessionManagement(s -> s.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
                .authorizeHttpRequests(a -> a.requestMatchers("/actuator/health/**").permitAll().anyRequest().authenticated())
                .httpBasic(Customizer.withDefaults())
                .build();
    }

    @Bean
    UserDetailsService users() {
        return new InMemoryUserDetailsManager(
                user("alice", "ROLE_APPLICANT"),
                user("bob", "ROLE_APPROVER", "GROUP_managers"),
                user("carol", "ROLE_APPROVER", "GROUP_legal"),
                user("dave", "ROLE_APPROVER", "GROUP_finance"),
                user("frank", "ROLE_APPROVER", "GROUP_directors"),
                user("erin", "ROLE_ADMIN"));
    }

    private static org.springframework.security.core.userdetails.UserDetails user(String name, String... authorities) {
        return User.withUsername(name).password("{noop}lockstep").authorities(authorities).build();
    }
}
