package dev.lockstep.platform.security.login;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * How many failed logins are tolerated per user name and per client address within {@code window}
 * before further attempts (right password or not) are refused with 429 until the window lets one more.
 * {@code trackedKeys} bounds the memory the counters may take however many names an attacker tries.
 */
@ConfigurationProperties("lockstep.login-throttle")
public record LoginThrottleProperties(@DefaultValue("5") int failuresPerUser, @DefaultValue("50") int failuresPerAddress,
        @DefaultValue("15m") Duration window, @DefaultValue("10000") int trackedKeys) {
}
