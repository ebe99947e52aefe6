package dev.lockstep.platform.health;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code lockstep.health.*}: how Lockstep's health components probe what they report on.
 *
 * @param probeMaxAge how old a component's last probe may be before a health request starts a new one; every request
 *        inside it is answered from that probe, so a flood of health requests runs each probe at most once per window
 * @param probeTimeout how long a health request waits for a probe; one that has not answered by then is reported DOWN
 *        while it goes on, and no second probe of that component starts until it ends
 */
@ConfigurationProperties("lockstep.health")
public record HealthProbeProperties(@DefaultValue("5s") Duration probeMaxAge, @DefaultValue("2s") Duration probeTimeout) {
}
