package dev.lockstep.platform.security;

import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.platform.StartupCheckFailure;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Settings meant for external mode must not be silently ignored while the demo users answer. */
class DemoUsersTest {

    private static final LockstepSecurityProperties.Jwt NO_JWT = new LockstepSecurityProperties.Jwt(null, null, null, null, "sub");

    @Test
    void configuredUsersInEmbeddedModeStopTheStartup() {
        var properties = new LockstepSecurityProperties(
                List.of(new LockstepSecurityProperties.User("maria", "{noop}x", List.of("ADMIN"), List.of())), NO_JWT);

        assertThatThrownBy(() -> DemoUsers.refuseExternalSettings(properties))
                .isInstanceOf(StartupCheckFailure.class).hasMessageStartingWith("lockstep.security.users:")
                .hasMessageContaining("lockstep.mode=external");
    }

    @Test
    void jwtSettingsInEmbeddedModeStopTheStartup() {
        var properties = new LockstepSecurityProperties(List.of(),
                new LockstepSecurityProperties.Jwt("https://login.example.com/realms/x", null, null, null, "sub"));

        assertThatThrownBy(() -> DemoUsers.refuseExternalSettings(properties))
                .isInstanceOf(StartupCheckFailure.class).hasMessageStartingWith("lockstep.security.jwt:");
    }

    @Test
    void nothingConfiguredIsTheDemo() {
        assertThatNoException().isThrownBy(() -> DemoUsers.refuseExternalSettings(new LockstepSecurityProperties(List.of(), NO_JWT)));
    }
}
