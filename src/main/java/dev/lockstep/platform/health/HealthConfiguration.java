package dev.lockstep.platform.health;

import dev.lockstep.platform.StartupCheckFailure;
import java.time.Clock;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The probe settings, checked at startup. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(HealthProbeProperties.class)
public class HealthConfiguration {

    @Bean
    HealthProbes healthProbes(HealthProbeProperties properties, ObjectProvider<Clock> clock) {
        StartupCheckFailure.requirePositive("lockstep.health.probe-max-age", properties.probeMaxAge(), "5s");
        StartupCheckFailure.requirePositive("lockstep.health.probe-timeout", properties.probeTimeout(), "2s");
        return new HealthProbes(properties, clock.getIfAvailable(Clock::systemUTC));
    }
}
