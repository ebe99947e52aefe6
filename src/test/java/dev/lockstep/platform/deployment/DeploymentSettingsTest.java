package dev.lockstep.platform.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.support.Api;
import dev.lockstep.support.LockstepIntegrationTest;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Probe;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.context.properties.ConfigurationPropertiesBean;
import org.springframework.context.ApplicationContext;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** What xa-config/kubernetes/ and the image ask of the running service: settings it knows and probe paths it answers. */
@LockstepIntegrationTest
class DeploymentSettingsTest {

    private final KubernetesManifests manifests = KubernetesManifests.load();

    @Autowired
    ApplicationContext context;
    @Autowired
    Api api;

    @Test
    void everyVariableTheNodesGetIsASettingOfTheService() throws IOException {
        // the image's ENV, then the pod's variables over it
        Map<String, String> variables = new LinkedHashMap<>(Containerfile.read().environment());
        variables.putAll(manifests.environment(manifests.podNames().get(0)));
        variables.keySet().removeAll(manifests.expansionInputs());
        assertThat(variables).containsKeys("LOCKSTEP_HOME", "LOCKSTEP_TM_UNIQUE_NAME", "LOCKSTEP_DB_BUSINESS_POOL_SIZE");
        // a misspelt one would be ignored by the service in silence: here it must stand out
        variables.put("LOCKSTEP_TM_UNIQUE_NAEM", "lockstep-0.tm");

        Set<String> reachASetting = new PodSettings(variables)
                .variablesThatReachASetting(ConfigurationPropertiesBean.getAll(context).values(), bootsDeclaredSettings());

        Set<String> unknown = new TreeSet<>(variables.keySet());
        unknown.removeAll(reachASetting);
        assertThat(unknown).as("variables set in %s or %s that no setting of the service reads", KubernetesManifests.DIRECTORY,
                Containerfile.FILE)
                .containsExactly("LOCKSTEP_TM_UNIQUE_NAEM");
    }

    @Test
    void everyProbePathAnswersAnyoneWithTheStatus() {
        Container container = manifests.container();
        Set<String> paths = new TreeSet<>();
        for (Probe probe : List.of(container.getStartupProbe(), container.getReadinessProbe(), container.getLivenessProbe())) {
            paths.add(probe.getHttpGet().getPath());
        }
        for (String path : paths) {
            Api.Response answer = api.get(null, path);
            assertThat(answer.status()).as(path + ": " + answer).isEqualTo(200);
            assertThat(answer.json().get("status").asString()).as(path).isEqualTo("UP");
            assertThat(answer.json().has("components")).as("anonymous callers see only the status").isFalse();
        }
    }

    /** Settings Boot's own jars declare (META-INF/spring-configuration-metadata.json), e.g. logging.*, which no bean binds. */
    private static Collection<String> bootsDeclaredSettings() throws IOException {
        List<String> names = new ArrayList<>();
        for (Resource metadata : new PathMatchingResourcePatternResolver()
                .getResources("classpath*:META-INF/spring-configuration-metadata.json")) {
            try (InputStream in = metadata.getInputStream()) {
                JsonNode properties = JsonMapper.shared().readTree(in).path("properties");
                Stream.iterate(0, i -> i < properties.size(), i -> i + 1).map(i -> properties.get(i).get("name").asString())
                        .forEach(names::add);
            }
        }
        return names;
    }
}
