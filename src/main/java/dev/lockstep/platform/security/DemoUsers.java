package dev.lockstep.platform.security;

import dev.lockstep.platform.RunsEmbeddedDatabasesCondition;
import dev.lockstep.platform.StartupCheckFailure;
import java.util.List;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetails;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;

/**
 * The demo users of the embedded default, all with the password {@code lockstep}. This class is the
 * only place they are defined, and it exists only when the service runs its own database servers:
 * {@code lockstep.mode} embedded (or unset), or single without {@code lockstep.db.single.url}.
 */
@Configuration(proxyBeanMethods = false)
@Conditional(RunsEmbeddedDatabasesCondition.class)
class DemoUsers {

    private static final Logger log = LoggerFactory.getLogger(DemoUsers.class);

    /**
     * bcrypt of "lockstep" at cost 4. HTTP Basic verifies the password on every request; at the
     * default cost 10 that is about 90 ms of CPU per call, which would throttle demos and load tests.
     */
    static final String PASSWORD_HASH = "{bcrypt}$2a$04$D7WvvnF701A88gXv3h1NLOFOnOJMgYcurtbpvMNAVVfj2c43.c6o2";

    record DemoUser(String name, String role, String group) {
    }

    static final List<DemoUser> USERS = List.of(
            new DemoUser("alice", Roles.APPLICANT, null),
            new DemoUser("bob", Roles.APPROVER, "managers"),
            new DemoUser("carol", Roles.APPROVER, "legal"),
            new DemoUser("dave", Roles.APPROVER, "finance"),
            new DemoUser("frank", Roles.APPROVER, "directors"),
            new DemoUser("erin", Roles.ADMIN, null),
            // a second admin: activating an approval definition takes two (four-eyes, docs/approvals.md)
            new DemoUser("grace", Roles.ADMIN, null),
            new DemoUser("dba1", Roles.DBA, null),
            new DemoUser("dba2", Roles.DBA, null),
            new DemoUser("audrey", Roles.AUDITOR, null));

    @Bean
    UserDetailsService demoUserDetailsService(LockstepSecurityProperties properties) {
        refuseExternalSettings(properties);
        List<UserDetails> users = USERS.stream().map(DemoUsers::userDetails).toList();
        log.info("Demo users (embedded mode only, never in lockstep.mode=external), password 'lockstep': {}",
                USERS.stream().map(DemoUsers::describe).collect(Collectors.joining(", ")));
        // Exposed as a plain UserDetailsService: as a UserDetailsPasswordService bean the manager
        // would let Spring Security re-hash the passwords at cost 10 on first login.
        return new InMemoryUserDetailsManager(users)::loadUserByUsername;
    }

    /** Users or a JWT issuer configured for embedded mode would silently be ignored while demo users answer. */
    static void refuseExternalSettings(LockstepSecurityProperties properties) {
        String fix = "set lockstep.mode=external (with its two databases) to use them, or remove them to run the demo.";
        if (properties.hasUsers()) {
            throw new StartupCheckFailure("lockstep.security.users",
                    "is set, but lockstep.mode is embedded, where only the demo users exist.", fix);
        }
        if (properties.jwt().isConfigured()) {
            throw new StartupCheckFailure("lockstep.security.jwt",
                    "is set, but lockstep.mode is embedded, where only the demo users exist.", fix);
        }
    }

    private static UserDetails userDetails(DemoUser user) {
        User.UserBuilder builder = User.withUsername(user.name()).password(PASSWORD_HASH);
        return user.group() == null
                ? builder.authorities(Caller.ROLE_PREFIX + user.role()).build()
                : builder.authorities(Caller.ROLE_PREFIX + user.role(), Caller.GROUP_PREFIX + user.group()).build();
    }

    private static String describe(DemoUser user) {
        return user.name() + " (" + user.role() + (user.group() == null ? "" : ", " + user.group()) + ")";
    }
}
