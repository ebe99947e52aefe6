package dev.lockstep.platform.security;

import dev.lockstep.platform.RunsEmbeddedDatabasesCondition;
import java.util.List;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.security.core.userdetails.UserDetails;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;

/**
 * How callers authenticate on databases the operator runs ({@code lockstep.mode=external}, or single
 * with a URL): configured users over HTTP Basic, bearer tokens from an identity provider, or both.
 * With neither, {@link SecurityConfiguration} refuses to start; the demo users never exist here.
 */
@Configuration(proxyBeanMethods = false)
@Conditional(RunsEmbeddedDatabasesCondition.OperatorDatabases.class)
class ExternalSecurityConfiguration {

    private static final Logger log = LoggerFactory.getLogger(ExternalSecurityConfiguration.class);

    @Bean
    @Conditional(UsersConfigured.class)
    UserDetailsService configuredUserDetailsService(LockstepSecurityProperties properties) {
        List<UserDetails> users = ConfiguredUsers.from(properties.users());
        log.info("HTTP Basic for {} configured user(s): {}", users.size(),
                users.stream().map(UserDetails::getUsername).toList());
        // Plain UserDetailsService on purpose: no password "upgrade" that re-hashes configured passwords.
        return new InMemoryUserDetailsManager(users)::loadUserByUsername;
    }

    @Bean
    @Conditional(JwtConfigured.class)
    JwtDecoder jwtDecoder(LockstepSecurityProperties properties) {
        log.info("Bearer tokens accepted from {}", properties.jwt());
        return BearerTokenDecoders.from(properties.jwt());
    }

    /** Decides on the bound properties, so that environment variables and list indexes count as set. */
    abstract static class OnSecuritySettings extends SpringBootCondition {

        private final String description;
        private final Predicate<LockstepSecurityProperties> test;

        OnSecuritySettings(String description, Predicate<LockstepSecurityProperties> test) {
            this.description = description;
            this.test = test;
        }

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            boolean configured = Binder.get(context.getEnvironment())
                    .bind("lockstep.security", LockstepSecurityProperties.class)
                    .map(test::test)
                    .orElse(false);
            return configured ? ConditionOutcome.match(description + " configured")
                    : ConditionOutcome.noMatch(description + " not configured");
        }
    }

    static final class UsersConfigured extends OnSecuritySettings {
        UsersConfigured() {
            super("lockstep.security.users", LockstepSecurityProperties::hasUsers);
        }
    }

    static final class JwtConfigured extends OnSecuritySettings {
        JwtConfigured() {
            super("lockstep.security.jwt", properties -> properties.jwt().isConfigured());
        }
    }
}
