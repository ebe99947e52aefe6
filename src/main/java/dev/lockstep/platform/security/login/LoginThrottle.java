package dev.lockstep.platform.security.login;

import dev.lockstep.platform.StartupCheckFailure;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.ConsumptionProbe;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Token buckets (Bucket4j) of failed logins, one per user name and one per client address: each failure
 * takes a token, the bucket refills over the window, and an empty bucket locks that name or address out.
 * Lockouts and refused attempts are counted by scope only, never by name (metric cardinality).
 */
public class LoginThrottle {

    public enum Scope { USER, ADDRESS }

    public record Lockout(Scope scope, Duration retryAfter) {
    }

    private static final int LONGEST_TRACKED_NAME = 128;

    private final LoginThrottleProperties properties;
    private final Map<String, Bucket> users;
    private final Map<String, Bucket> addresses;
    private final Map<Scope, Counter> lockouts;
    private final Map<Scope, Counter> refusals;

    public LoginThrottle(LoginThrottleProperties properties, MeterRegistry meters) {
        check(properties);
        this.properties = properties;
        this.users = leastRecentlyUsed(properties.trackedKeys());
        this.addresses = leastRecentlyUsed(properties.trackedKeys());
        this.lockouts = counters(meters, "lockstep.login.lockouts", "Times a user name or client address was locked out after too many failed logins");
        this.refusals = counters(meters, "lockstep.login.throttled", "Login attempts refused with 429 during a lockout");
    }

    /** Whether a login attempt by {@code user} (null when the request names none) from {@code address} must wait. */
    public Optional<Lockout> lockout(String user, String address) {
        Optional<Lockout> lockout = waitFor(Scope.USER, existing(users, userKey(user)))
                .or(() -> waitFor(Scope.ADDRESS, existing(addresses, address)));
        lockout.ifPresent(refused -> refusals.get(refused.scope()).increment());
        return lockout;
    }

    public void failed(String user, String address) {
        if (userKey(user) != null) {
            take(Scope.USER, bucket(users, userKey(user), properties.failuresPerUser()));
        }
        if (address != null) {
            take(Scope.ADDRESS, bucket(addresses, address, properties.failuresPerAddress()));
        }
    }

    private void take(Scope scope, Bucket bucket) {
        ConsumptionProbe probe = bucket.tryConsumeAndReturnRemaining(1);
        if (probe.isConsumed() && probe.getRemainingTokens() == 0) {
            lockouts.get(scope).increment();
        }
    }

    private static Optional<Lockout> waitFor(Scope scope, Bucket bucket) {
        if (bucket == null || bucket.getAvailableTokens() > 0) {
            return Optional.empty();
        }
        long nanos = bucket.estimateAbilityToConsume(1).getNanosToWaitForRefill();
        return Optional.of(new Lockout(scope, Duration.ofNanos(nanos)));
    }

    private Bucket bucket(Map<String, Bucket> buckets, String key, int failures) {
        synchronized (buckets) {
            return buckets.computeIfAbsent(key, unused -> Bucket.builder()
                    .addLimit(limit -> limit.capacity(failures).refillGreedy(failures, properties.window()))
                    .build());
        }
    }

    private static Bucket existing(Map<String, Bucket> buckets, String key) {
        if (key == null) {
            return null;
        }
        synchronized (buckets) {
            return buckets.get(key);
        }
    }

    /** User names are case-insensitive at login, so they are for the count too; absurdly long ones are cut. */
    private static String userKey(String user) {
        if (user == null || user.isEmpty()) {
            return null;
        }
        String key = user.toLowerCase(Locale.ROOT);
        return key.length() > LONGEST_TRACKED_NAME ? key.substring(0, LONGEST_TRACKED_NAME) : key;
    }

    private static Map<String, Bucket> leastRecentlyUsed(int capacity) {
        // access-ordered, so even a read changes it: every access holds the map's lock
        return new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Bucket> eldest) {
                return size() > capacity;
            }
        };
    }

    private static Map<Scope, Counter> counters(MeterRegistry meters, String name, String description) {
        return Map.of(Scope.USER, Counter.builder(name).tag("scope", "user").description(description).register(meters),
                Scope.ADDRESS, Counter.builder(name).tag("scope", "address").description(description).register(meters));
    }

    private static void check(LoginThrottleProperties properties) {
        if (properties.failuresPerUser() < 1 || properties.failuresPerAddress() < 1) {
            throw new StartupCheckFailure("lockstep.login-throttle.failures-per-user / failures-per-address",
                    "must be at least 1 (they are " + properties.failuresPerUser() + " / " + properties.failuresPerAddress() + ").",
                    "set a positive number of failed logins to tolerate per window (defaults 5 and 50).");
        }
        if (properties.window().isNegative() || properties.window().isZero() || properties.trackedKeys() < 1) {
            throw new StartupCheckFailure("lockstep.login-throttle.window / tracked-keys",
                    "must be positive (they are " + properties.window() + " / " + properties.trackedKeys() + ").",
                    "set e.g. lockstep.login-throttle.window=15m and tracked-keys=10000.");
        }
    }
}
