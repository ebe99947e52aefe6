package dev.lockstep.platform.health;

import dev.lockstep.platform.AreaApi;
import java.time.Clock;
import java.time.Duration;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * Turns a health check that reads a database into a health component that any number of callers may ask:
 * {@code /actuator/health} is open to anyone, and Boot asks every component on every request.
 */
@AreaApi
public final class HealthProbes {

    private final Duration maxAge;
    private final Duration timeout;
    private final Clock clock;

    HealthProbes(HealthProbeProperties properties, Clock clock) {
        this.maxAge = properties.probeMaxAge();
        this.timeout = properties.probeTimeout();
        this.clock = clock;
    }

    /**
     * {@code check} run at most once per {@code lockstep.health.probe-max-age}, one run at a time, on a thread of its
     * own; callers wait for it at most {@code lockstep.health.probe-timeout}.
     *
     * @param component the component's name, for the probe's thread
     */
    public HealthIndicator probed(String component, HealthIndicator check) {
        return new ProbedHealthIndicator(component, check, maxAge, timeout, clock);
    }
}
