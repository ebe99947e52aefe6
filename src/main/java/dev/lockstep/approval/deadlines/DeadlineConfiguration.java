package dev.lockstep.approval.deadlines;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Configuration;

/** Step deadline policies (docs/operations.md, "Step deadlines"). */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(DeadlineProperties.class)
class DeadlineConfiguration {
}
