package dev.lockstep.platform.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.platform.StartupCheckFailure;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;
import org.springframework.security.crypto.password.PasswordEncoder;

/** bcrypt runs once per password and hash within the time to live, and for every wrong password. */
class VerifiedPasswordsTest {

    private static final String HASH = new BCryptPasswordEncoder(4).encode("right");

    /** The real bcrypt check, counted. */
    private final AtomicInteger bcryptChecks = new AtomicInteger();
    private final PasswordEncoder bcrypt = new PasswordEncoder() {
        private final PasswordEncoder real = new BCryptPasswordEncoder(4);

        @Override
        public String encode(CharSequence rawPassword) {
            return real.encode(rawPassword);
        }

        @Override
        public boolean matches(CharSequence rawPassword, String encodedPassword) {
            bcryptChecks.incrementAndGet();
            return real.matches(rawPassword, encodedPassword);
        }
    };

    @Test
    void aVerifiedPasswordIsRememberedAndAWrongOneIsCheckedEveryTime() {
        PasswordEncoder passwords = new VerifiedPasswords(bcrypt, Duration.ofMinutes(1));

        assertThat(passwords.matches("right", HASH)).isTrue();
        assertThat(passwords.matches("right", HASH)).isTrue();
        assertThat(passwords.matches("right", HASH)).isTrue();
        assertThat(bcryptChecks).as("one bcrypt check for three requests").hasValue(1);

        assertThat(passwords.matches("wrong", HASH)).isFalse();
        assertThat(passwords.matches("wrong", HASH)).isFalse();
        assertThat(bcryptChecks).as("a failure is never remembered").hasValue(3);

        String otherHash = new BCryptPasswordEncoder(4).encode("right");
        assertThat(passwords.matches("right", otherHash)).isTrue();
        assertThat(bcryptChecks).as("an entry is bound to the hash it was verified against").hasValue(4);
    }

    @Test
    void anEntryExpiresAfterItsTimeToLive() throws InterruptedException {
        PasswordEncoder passwords = new VerifiedPasswords(bcrypt, Duration.ofMillis(50));

        assertThat(passwords.matches("right", HASH)).isTrue();
        Thread.sleep(200);
        assertThat(passwords.matches("right", HASH)).isTrue();
        assertThat(bcryptChecks).hasValue(2);
    }

    @Test
    void aTimeToLiveOfZeroChecksEveryRequest() {
        PasswordEncoder passwords = new VerifiedPasswords(bcrypt, Duration.ZERO);

        passwords.matches("right", HASH);
        passwords.matches("right", HASH);
        assertThat(bcryptChecks).hasValue(2);
    }

    @Test
    void aTimeToLiveOutsideZeroToOneHourStopsTheStartupNamingTheSetting() {
        for (Duration wrong : new Duration[] {Duration.ofSeconds(-1), Duration.ofHours(2)}) {
            assertThatThrownBy(() -> new SecurityConfiguration().passwordEncoder(wrong))
                    .isInstanceOf(StartupCheckFailure.class).hasMessageContaining("lockstep.security.verified-password-ttl");
        }
    }
}
