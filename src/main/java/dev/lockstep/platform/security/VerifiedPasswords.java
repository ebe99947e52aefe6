package dev.lockstep.platform.security;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.springframework.security.crypto.password.PasswordEncoder;

/**
 * Remembers for a short time that a password matched its stored hash, so that an API client sending HTTP Basic
 * with every request pays bcrypt (about 90 ms of CPU at cost 10) once per {@code ttl} instead of on every call.
 * The cache holds neither a password nor its hash: an entry's key is HMAC-SHA256 of (hash, password) under a
 * random key made at startup and kept in memory only, so a changed hash never matches an old entry. A failed
 * check is never remembered: every wrong password still costs bcrypt and reaches the login throttle. At most
 * {@value #MAX_ENTRIES} entries; a {@code ttl} of zero turns remembering off.
 */
final class VerifiedPasswords implements PasswordEncoder {

    static final int MAX_ENTRIES = 10_000;
    private static final String HMAC = "HmacSHA256";

    private final PasswordEncoder delegate;
    private final Cache<String, Boolean> verified;
    private final SecretKeySpec key;

    VerifiedPasswords(PasswordEncoder delegate, Duration ttl) {
        this.delegate = delegate;
        this.verified = ttl.isZero() ? null : Caffeine.newBuilder().expireAfterWrite(ttl).maximumSize(MAX_ENTRIES).build();
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        this.key = new SecretKeySpec(secret, HMAC);
    }

    @Override
    public String encode(CharSequence rawPassword) {
        return delegate.encode(rawPassword);
    }

    @Override
    public boolean matches(CharSequence rawPassword, String encodedPassword) {
        if (verified == null || rawPassword == null || encodedPassword == null) {
            return delegate.matches(rawPassword, encodedPassword);
        }
        String entry = fingerprint(encodedPassword, rawPassword);
        if (verified.getIfPresent(entry) != null) {
            return true;
        }
        boolean matches = delegate.matches(rawPassword, encodedPassword);
        if (matches) {
            verified.put(entry, Boolean.TRUE);
        }
        return matches;
    }

    @Override
    public boolean upgradeEncoding(String encodedPassword) {
        return delegate.upgradeEncoding(encodedPassword);
    }

    private String fingerprint(String encodedPassword, CharSequence rawPassword) {
        try {
            Mac mac = Mac.getInstance(HMAC);
            mac.init(key);
            mac.update(encodedPassword.getBytes(StandardCharsets.UTF_8));
            mac.update((byte) 0);
            mac.update(rawPassword.toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(mac.doFinal());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }
}
