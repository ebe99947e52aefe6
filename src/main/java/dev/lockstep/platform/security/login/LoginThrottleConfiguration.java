package dev.lockstep.platform.security.login;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The failed-login throttle. Its filter ({@link LoginThrottleFilter}) takes the tokens before a password is checked
 * and gives them back on success; no authentication event feeds it any more (issue 29: counting on the failure event
 * let every guess that arrived before the first failure was counted through).
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(LoginThrottleProperties.class)
class LoginThrottleConfiguration {

    @Bean
    LoginThrottle loginThrottle(LoginThrottleProperties properties, MeterRegistry meters) {
        return new LoginThrottle(properties, meters);
    }
}
