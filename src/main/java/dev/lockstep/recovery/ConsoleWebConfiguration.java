package dev.lockstep.recovery;

import dev.lockstep.platform.ConditionalOnXaMode;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.config.annotation.ViewControllerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/** Serves the static DBA console (src/main/resources/static/console) at /console. */
@Configuration(proxyBeanMethods = false)
@ConditionalOnXaMode
class ConsoleWebConfiguration implements WebMvcConfigurer {

    @Override
    public void addViewControllers(ViewControllerRegistry registry) {
        registry.addRedirectViewController("/console", "/console/");
        registry.addViewController("/console/").setViewName("forward:/console/index.html");
    }
}
