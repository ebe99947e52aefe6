package dev.lockstep.platform.deployment;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.springframework.boot.context.properties.ConfigurationPropertiesBean;
import org.springframework.boot.context.properties.bind.AbstractBindHandler;
import org.springframework.boot.context.properties.bind.BindContext;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.bind.PropertySourcesPlaceholdersResolver;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.origin.PropertySourceOrigin;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.core.io.ClassPathResource;

/**
 * A pod's settings as Spring Boot resolves them: its environment variables (relaxed binding, as Boot
 * reads the real environment) over the packaged application.yml over each setting's default.
 */
final class PodSettings {

    private final ConfigurationPropertySource environment;
    private final Binder binder;

    PodSettings(Map<String, String> variables) {
        // the name Boot gives the real environment's source: only then does it map LOCKSTEP_TM_UNIQUE_NAME to lockstep.tm.unique-name
        SystemEnvironmentPropertySource pod = new SystemEnvironmentPropertySource("pod-"
                + StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, new HashMap<>(variables));
        environment = ConfigurationPropertySource.from(pod);
        MutablePropertySources sources = new MutablePropertySources();
        sources.addLast(pod);
        try {
            new YamlPropertySourceLoader().load("application.yml", new ClassPathResource("application.yml")).forEach(sources::addLast);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        // application.yml's ${PORT:8080} and the like resolve as in the service
        binder = new Binder(ConfigurationPropertySources.from(sources), new PropertySourcesPlaceholdersResolver(sources));
    }

    /** The settings under {@code prefix} as {@code type}, defaults included. */
    <T> T bind(String prefix, Class<T> type) {
        return binder.bindOrCreate(prefix, type);
    }

    /**
     * The environment variables that reach a setting: bound by one of {@code beans} (the running service's
     * {@code @ConfigurationProperties}), or named in {@code declared} (e.g. Boot's configuration metadata, for
     * settings that no bean binds, such as {@code logging.*}).
     */
    Set<String> variablesThatReachASetting(Collection<ConfigurationPropertiesBean> beans, Collection<String> declared) {
        Set<String> used = new TreeSet<>();
        Binder environmentOnly = new Binder(environment);
        AbstractBindHandler recording = new AbstractBindHandler() {
            @Override
            public Object onSuccess(ConfigurationPropertyName name, Bindable<?> target, BindContext context, Object result) {
                record(context.getConfigurationProperty(), used);
                return super.onSuccess(name, target, context, result);
            }
        };
        for (ConfigurationPropertiesBean bean : beans) {
            try {
                environmentOnly.bind(bean.getAnnotation().prefix(), bean.asBindTarget(), recording);
            } catch (BindException refusedByItsOwnChecks) {
                // the values it did take are recorded; a placeholder Secret value need not satisfy a check
            }
        }
        for (String name : declared) {
            ConfigurationPropertyName property = ConfigurationPropertyName.ofIfValid(name);
            if (property != null) {
                record(environment.getConfigurationProperty(property), used);
            }
        }
        return used;
    }

    private static void record(ConfigurationProperty property, Set<String> used) {
        if (property != null && property.getOrigin() instanceof PropertySourceOrigin origin) {
            used.add(origin.getPropertyName());
        }
    }
}
