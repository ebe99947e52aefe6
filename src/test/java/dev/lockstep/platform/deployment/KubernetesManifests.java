package dev.lockstep.platform.deployment;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/** xa-config/kubernetes/ read with fabric8's Kubernetes model, and the environment its pods get. */
final class KubernetesManifests {

    static final Path DIRECTORY = Path.of("xa-config/kubernetes");
    static final String NODES = "lockstep";
    /** A dependent variable, {@code $(NAME)}, as the kubelet expands it from the variables defined before it. */
    private static final Pattern REFERENCE = Pattern.compile("\\$\\(([A-Za-z_][A-Za-z0-9_]*)\\)");

    private final List<HasMetadata> resources;

    private KubernetesManifests(List<HasMetadata> resources) {
        this.resources = resources;
    }

    static KubernetesManifests load() {
        KubernetesSerialization serialization = new KubernetesSerialization();
        List<HasMetadata> resources = new ArrayList<>();
        try (Stream<Path> files = Files.list(DIRECTORY)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
                try (InputStream in = Files.newInputStream(file)) {
                    Object parsed = serialization.unmarshal(in);
                    if (parsed instanceof KubernetesResourceList<?> list) {
                        resources.addAll(list.getItems());
                    } else if (parsed instanceof List<?> list) {
                        list.forEach(item -> resources.add((HasMetadata) item));
                    } else {
                        resources.add((HasMetadata) parsed);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new KubernetesManifests(resources);
    }

    <T extends HasMetadata> List<T> all(Class<T> kind) {
        return resources.stream().filter(kind::isInstance).map(kind::cast).toList();
    }

    <T extends HasMetadata> T one(Class<T> kind, String name) {
        List<T> named = all(kind).stream().filter(r -> name.equals(r.getMetadata().getName())).toList();
        if (named.size() != 1) {
            throw new AssertionError(named.size() + " " + kind.getSimpleName() + " named " + name + " in " + DIRECTORY);
        }
        return named.get(0);
    }

    StatefulSet nodes() {
        return one(StatefulSet.class, NODES);
    }

    Container container() {
        List<Container> containers = nodes().getSpec().getTemplate().getSpec().getContainers();
        if (containers.size() != 1) {
            throw new AssertionError("the node pod should run exactly one container, not " + containers.size());
        }
        return containers.get(0);
    }

    /** lockstep-0 ... lockstep-(replicas - 1): a StatefulSet's pod names. */
    List<String> podNames() {
        return IntStream.range(0, nodes().getSpec().getReplicas()).mapToObj(ordinal -> NODES + "-" + ordinal).toList();
    }

    /**
     * The container's environment in the pod {@code podName}: dependent variables expanded, the pod's name
     * from the downward API, and a placeholder for a Secret's key (its value is no setting's concern).
     */
    Map<String, String> environment(String podName) {
        Map<String, String> environment = new LinkedHashMap<>();
        for (EnvVar variable : container().getEnv()) {
            environment.put(variable.getName(), variable.getValueFrom() == null ? expand(variable.getValue(), environment)
                    : fromSource(variable, podName));
        }
        return environment;
    }

    /** Variables set only to be expanded into others (e.g. POD_NAME into the transaction manager name), not settings. */
    Set<String> expansionInputs() {
        Set<String> inputs = new LinkedHashSet<>();
        for (EnvVar variable : container().getEnv()) {
            if (variable.getValue() != null) {
                Matcher reference = REFERENCE.matcher(variable.getValue());
                while (reference.find()) {
                    inputs.add(reference.group(1));
                }
            }
        }
        return inputs;
    }

    private static String expand(String value, Map<String, String> defined) {
        if (value == null) {
            return "";
        }
        return REFERENCE.matcher(value).replaceAll(reference -> Matcher.quoteReplacement(
                defined.getOrDefault(reference.group(1), reference.group())));
    }

    private static String fromSource(EnvVar variable, String podName) {
        if (variable.getValueFrom().getFieldRef() != null
                && "metadata.name".equals(variable.getValueFrom().getFieldRef().getFieldPath())) {
            return podName;
        }
        if (variable.getValueFrom().getSecretKeyRef() != null) {
            return "secret-" + variable.getValueFrom().getSecretKeyRef().getKey();
        }
        throw new AssertionError(variable.getName() + ": this test knows only the pod name and Secret keys as sources: "
                + variable.getValueFrom());
    }
}
