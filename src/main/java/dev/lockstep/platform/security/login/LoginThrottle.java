package dev.lockstep.platform.security.login;

import dev.lockstep.platform.StartupCheckFailure;
import io.github.bucket4j.Bucket;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Token buckets (Bucket4j) of failed logins, one per user name and one per client address. An attempt takes a
 * token from both before its password is checked ({@link #begin}) and gives them back only if the password
 * matched ({@link Attempt#end}): a failure keeps them, and so does an attempt whose outcome is still open, so
 * however many guesses arrive at once no more than a bucket's tokens are ever being checked. The bucket refills
 * over the window; an empty one locks that name or address out. An attempt that finds a bucket empty only because
 * other attempts of the same name or address are still being checked waits for their outcome (at most
 * {@link #LONGEST_WAIT}) rather than being refused, so that a client's burst of right passwords is not mistaken
 * for guessing. Lockouts and refused attempts are counted by scope only, never by name (metric cardinality).
 */
public class LoginThrottle {

    public enum Scope { USER, ADDRESS }

    public record Lockout(Scope scope, Duration retryAfter) {
    }

    /** Either an attempt that holds its tokens while its password is checked, or the lockout that refused it. */
    public record Admission(Attempt attempt, Lockout lockout) {
    }

    /** How long an attempt waits for the outcome of attempts in flight before it is refused. */
    static final Duration LONGEST_WAIT = Duration.ofSeconds(5);

    private static final int LONGEST_TRACKED_NAME = 128;

    /** What {@code reserve} answers for a key that was dropped meanwhile: fetch the current one and try again. */
    private static final Lockout RETIRED = new Lockout(Scope.USER, Duration.ZERO);

    private final LoginThrottleProperties properties;
    private final Map<String, Key> users;
    private final Map<String, Key> addresses;
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

    /**
     * Takes one token for a login attempt by {@code user} (null or empty when the request names none) from
     * {@code address}, from both buckets, before its password is checked; a lockout if either is empty.
     */
    public Admission begin(String user, String address) {
        long deadline = System.nanoTime() + LONGEST_WAIT.toNanos();
        String name = userKey(user);
        Key userKey = name == null ? null : key(users, name, properties.failuresPerUser());
        Key addressKey = address == null ? null : key(addresses, address, properties.failuresPerAddress());
        Lockout lockout;
        while ((lockout = reserve(Scope.USER, userKey, deadline)) == RETIRED) {
            userKey = key(users, name, properties.failuresPerUser());
        }
        if (lockout == null) {
            while ((lockout = reserve(Scope.ADDRESS, addressKey, deadline)) == RETIRED) {
                addressKey = key(addresses, address, properties.failuresPerAddress());
            }
            if (lockout != null) {
                end(Scope.USER, users, name, userKey, true);
            }
        }
        if (lockout != null) {
            refusals.get(lockout.scope()).increment();
            return new Admission(null, lockout);
        }
        return new Admission(new Attempt(name, userKey, address, addressKey), null);
    }

    /** A login attempt holding one token of its name's and of its address's bucket while its password is checked. */
    public final class Attempt {

        private final String name;
        private final Key user;
        private final String address;
        private final Key fromAddress;
        private final AtomicBoolean ended = new AtomicBoolean();

        private Attempt(String name, Key user, String address, Key fromAddress) {
            this.name = name;
            this.user = user;
            this.address = address;
            this.fromAddress = fromAddress;
        }

        /**
         * {@code succeeded}: the password was checked and matched (or the request was otherwise authenticated
         * without a guess), so the tokens go back; otherwise — refused, or no proof of success — they stay taken.
         */
        public void end(boolean succeeded) {
            if (ended.compareAndSet(false, true)) {
                LoginThrottle.this.end(Scope.USER, users, name, user, succeeded);
                LoginThrottle.this.end(Scope.ADDRESS, addresses, address, fromAddress, succeeded);
            }
        }
    }

    /**
     * A bucket and the attempts holding one of its tokens right now; both guarded by the key's monitor. A key
     * dropped from its map is {@code retired}: an attempt that fetched it just before takes the new one instead.
     */
    private static final class Key {

        final Bucket bucket;
        final int capacity;
        int inFlight;
        boolean retired;

        Key(Bucket bucket, int capacity) {
            this.bucket = bucket;
            this.capacity = capacity;
        }
    }

    private static Lockout reserve(Scope scope, Key key, long deadline) {
        if (key == null) {
            return null;
        }
        synchronized (key) {
            while (true) {
                if (key.retired) {
                    return RETIRED;
                }
                if (key.bucket.tryConsume(1)) {
                    key.inFlight++;
                    return null;
                }
                long left = deadline - System.nanoTime();
                if (key.inFlight == 0 || left <= 0) {
                    // empty through failures (or still empty when the wait is over): a lockout
                    Duration retryAfter = key.inFlight == 0
                            ? Duration.ofNanos(key.bucket.estimateAbilityToConsume(1).getNanosToWaitForRefill())
                            : Duration.ofSeconds(1);
                    return new Lockout(scope, retryAfter);
                }
                try {
                    key.wait(Math.max(1, left / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return new Lockout(scope, Duration.ofSeconds(1));
                }
            }
        }
    }

    private void end(Scope scope, Map<String, Key> keys, String name, Key key, boolean succeeded) {
        if (key == null) {
            return;
        }
        synchronized (key) {
            key.inFlight--;
            if (succeeded) {
                key.bucket.addTokens(1);
            } else if (key.inFlight == 0 && key.bucket.getAvailableTokens() == 0) {
                // the last token went to a failure: a lockout begins (counted once, by the last attempt to end)
                lockouts.get(scope).increment();
            }
            key.notifyAll();
            if (!succeeded) {
                return;
            }
        }
        // a full bucket with nobody in flight says nothing: forget it, so that only failures take up tracked keys
        synchronized (keys) {
            synchronized (key) {
                if (!key.retired && key.inFlight == 0 && key.bucket.getAvailableTokens() >= key.capacity) {
                    key.retired = true;
                    keys.remove(name, key);
                    key.notifyAll();
                }
            }
        }
    }

    private Key key(Map<String, Key> keys, String name, int failures) {
        synchronized (keys) {
            return keys.computeIfAbsent(name, unused -> new Key(bucket(failures), failures));
        }
    }

    private Bucket bucket(int failures) {
        return Bucket.builder()
                .addLimit(limit -> limit.capacity(failures).refillGreedy(failures, properties.window()))
                .build();
    }

    /** User names are case-insensitive at login, so they are for the count too; absurdly long ones are cut. */
    private static String userKey(String user) {
        if (user == null || user.isEmpty()) {
            return null;
        }
        String key = user.toLowerCase(Locale.ROOT);
        return key.length() > LONGEST_TRACKED_NAME ? key.substring(0, LONGEST_TRACKED_NAME) : key;
    }

    private static Map<String, Key> leastRecentlyUsed(int capacity) {
        // access-ordered, so even a read changes it: every access holds the map's lock
        return new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Key> eldest) {
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
