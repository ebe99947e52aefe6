package dev.lockstep.platform.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.platform.StartupCheckFailure;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.userdetails.UserDetails;
import org.springframework.security.crypto.password.PasswordEncoder;

class ConfiguredUsersTest {

    // bcrypt of "s3cret" at cost 10, the $2y$ flavour htpasswd -nbBC 10 prints ($2y$).
    private static final String S3CRET_BCRYPT = "{bcrypt}$2y$10$uo34p17fx6Det0DCWD5oPeYLEiMRKUaJgTOnBAe.qIBS8bs9D9p0K";

    private final PasswordEncoder encoder = new SecurityConfiguration().passwordEncoder(Duration.ofMinutes(1));

    @Test
    void validUsersKeepTheirEncodedPasswordRolesAndGroups() {
        List<UserDetails> users = ConfiguredUsers.from(List.of(
                user("maria", S3CRET_BCRYPT, List.of("APPROVER"), List.of("managers", "directors")),
                user("ops", "{noop}only-for-tests", List.of("ADMIN", "DBA"), List.of())));

        assertThat(users).extracting(UserDetails::getUsername).containsExactly("maria", "ops");
        assertThat(users.get(0).getAuthorities()).extracting(GrantedAuthority::getAuthority)
                .containsExactlyInAnyOrder("ROLE_APPROVER", "GROUP_managers", "GROUP_directors");
        assertThat(encoder.matches("s3cret", users.get(0).getPassword())).isTrue();
        assertThat(encoder.matches("lockstep", users.get(0).getPassword())).isFalse();
        assertThat(encoder.matches("only-for-tests", users.get(1).getPassword())).isTrue();
    }

    @Test
    void plainTextPasswordIsRefusedWithoutBeingEchoed() {
        assertThatThrownBy(() -> ConfiguredUsers.from(List.of(
                user("maria", S3CRET_BCRYPT, List.of("APPROVER"), List.of()),
                user("ops", "hunter2-plain", List.of("ADMIN"), List.of()))))
                .isInstanceOfSatisfying(StartupCheckFailure.class, failure -> {
                    assertThat(failure.setting()).isEqualTo("lockstep.security.users[1].password");
                    assertThat(failure.getMessage()).contains("plain-text").doesNotContain("hunter2-plain");
                    assertThat(failure.fix()).contains("{bcrypt}");
                });
    }

    @Test
    void weakOrUnknownEncodingsAndMangledHashesAreRefused() {
        assertRefused(user("ops", "{MD5}5f4dcc3b5aa765d61d8327deb882cf99", List.of("ADMIN"), List.of()),
                "lockstep.security.users[0].password");
        // What "{bcrypt}$2y$10$..." becomes when a shell expands $2y and $10 as variables.
        assertRefused(user("ops", "{bcrypt}uo34p17fx6Det0DCWD5oPeYLEiMRKUaJgTOnBAe.qIBS8bs9D9p0K", List.of("ADMIN"), List.of()),
                "lockstep.security.users[0].password");
        assertRefused(user("ops", null, List.of("ADMIN"), List.of()), "lockstep.security.users[0].password");
    }

    @Test
    void unknownOrMissingRolesBlankAndRepeatedNamesAreRefused() {
        assertRefused(user("ops", S3CRET_BCRYPT, List.of("SUPERUSER"), List.of()), "lockstep.security.users[0].roles");
        assertRefused(user("ops", S3CRET_BCRYPT, List.of(), List.of()), "lockstep.security.users[0].roles");
        assertRefused(user(" ", S3CRET_BCRYPT, List.of("ADMIN"), List.of()), "lockstep.security.users[0].name");
        assertThatThrownBy(() -> ConfiguredUsers.from(List.of(
                user("ops", S3CRET_BCRYPT, List.of("ADMIN"), List.of()),
                user("ops", S3CRET_BCRYPT, List.of("DBA"), List.of()))))
                .isInstanceOfSatisfying(StartupCheckFailure.class,
                        failure -> assertThat(failure.setting()).isEqualTo("lockstep.security.users[1].name"));
    }

    private static void assertRefused(LockstepSecurityProperties.User user, String setting) {
        assertThatThrownBy(() -> ConfiguredUsers.from(List.of(user)))
                .isInstanceOfSatisfying(StartupCheckFailure.class, failure -> assertThat(failure.setting()).isEqualTo(setting));
    }

    private static LockstepSecurityProperties.User user(String name, String password, List<String> roles, List<String> groups) {
        return new LockstepSecurityProperties.User(name, password, roles, groups);
    }
}
