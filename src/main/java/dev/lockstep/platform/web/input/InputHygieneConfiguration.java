package dev.lockstep.platform.web.input;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.converter.HttpMessageConverters;
import org.springframework.http.converter.yaml.JacksonYamlHttpMessageConverter;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import tools.jackson.databind.JacksonModule;
import tools.jackson.databind.module.SimpleModule;

/**
 * Refuses control characters at the edge, in one place for every endpoint: in each string of a JSON
 * body (a Jackson module, so new request types are covered without code) and in each query parameter
 * and path variable (an MVC interceptor), before any of it reaches a use case or a statement. Bodies are
 * JSON only: the YAML library is on the class path for declarative flows, which read their own body.
 */
@Configuration(proxyBeanMethods = false)
class InputHygieneConfiguration implements WebMvcConfigurer {

    /** Boot registers every {@link JacksonModule} bean in the mapper that reads request bodies. */
    @Bean
    JacksonModule controlCharacterModule() {
        return new SimpleModule("control-characters").addDeserializer(String.class, new ControlCharacterStringDeserializer());
    }

    /**
     * Without this, Spring would register a YAML converter for the library on the class path, and every endpoint
     * without a {@code consumes} would take YAML bodies, read by a mapper without the control-character module, and
     * answer in YAML when asked.
     */
    @Override
    public void configureMessageConverters(HttpMessageConverters.ServerBuilder builder) {
        builder.configureMessageConvertersList(converters -> converters.removeIf(JacksonYamlHttpMessageConverter.class::isInstance));
    }

    @Override
    public void addInterceptors(InterceptorRegistry registry) {
        registry.addInterceptor(new RequestParameterCheck());
    }
}
