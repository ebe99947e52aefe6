package dev.lockstep.platform.security.login;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.authentication.event.AbstractAuthenticationFailureEvent;
import org.springframework.security.web.authentication.WebAuthenticationDetails;

/** The failed-login throttle and what feeds it: Spring Security's failure events for Basic and form logins. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(LoginThrottleProperties.class)
class LoginThrottleConfiguration {

    @Bean
    LoginThrottle loginThrottle(LoginThrottleProperties properties, MeterRegistry meters) {
        return new LoginThrottle(properties, meters);
    }

    @Bean
    FailedLogins failedLogins(LoginThrottle throttle) {
        return new FailedLogins(throttle);
    }

    static final class FailedLogins {

        private final LoginThrottle throttle;

        FailedLogins(LoginThrottle throttle) {
            this.throttle = throttle;
        }

        /** Only a name and password that were checked and refused count; a bearer token's failure is not a guess. */
        @EventListener
        void failed(AbstractAuthenticationFailureEvent event) {
            if (event.getAuthentication() instanceof UsernamePasswordAuthenticationToken attempt) {
                String address = attempt.getDetails() instanceof WebAuthenticationDetails details ? details.getRemoteAddress() : null;
                throttle.failed(attempt.getName(), address);
            }
        }
    }
}
