package dev.lockstep.recovery;

import dev.lockstep.security.Roles;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.crypto.factory.PasswordEncoderFactories;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;

/**
 * Stand-in for the security package's demo users (same names, password and roles) so the recovery
 * console can be used and tested before that package lands. Delete this class when merging the
 * security branch: its users replace these.
 */
@Configuration(proxyBeanMethods = false)
class ProvisionalDemoUsers {

    @Bean
    @ConditionalOnMissingBean(UserDetailsService.class)
    InMemoryUserDetailsManager demoUsersUntilSecurityLands() {
        var encoder = PasswordEncoderFactories.createDelegatingPasswordEncoder();
        var users = new InMemoryUserDetailsManager();
        for (String dba : new String[] {"dba1", "dba2"}) {
            users.createUser(User.withUsername(dba).password(encoder.encode("lockstep")).roles(Roles.DBA).build());
        }
        users.createUser(User.withUsername("audrey").password(encoder.encode("lockstep")).roles(Roles.AUDITOR).build());
        users.createUser(User.withUsername("erin").password(encoder.encode("lockstep")).roles(Roles.ADMIN).build());
        return users;
    }
}
