package dev.lockstep.platform.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import org.springframework.security.crypto.password.PasswordEncoder;

/**
 * The {@code {noop}} encoding of a configured password, for throwaway test rigs only (docs/security.md). Spring
 * Security's own {@code NoOpPasswordEncoder} is deprecated as a warning sign; this one says the same in its name and
 * compares in constant time, so even a test rig does not leak a password's prefix through timing.
 */
final class PlainTextForTestRigs implements PasswordEncoder {

    @Override
    public String encode(CharSequence rawPassword) {
        return rawPassword.toString();
    }

    @Override
    public boolean matches(CharSequence rawPassword, String encodedPassword) {
        return encodedPassword != null && MessageDigest.isEqual(rawPassword.toString().getBytes(StandardCharsets.UTF_8),
                encodedPassword.getBytes(StandardCharsets.UTF_8));
    }
}
