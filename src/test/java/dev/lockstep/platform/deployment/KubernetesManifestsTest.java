package dev.lockstep.platform.deployment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.lockstep.platform.LockstepProperties;
import dev.lockstep.transactions.xa.TransactionManagerName;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.context.LifecycleProperties;
import org.springframework.boot.web.server.Shutdown;
import org.springframework.boot.web.server.autoconfigure.ServerProperties;

/**
 * The invariants of xa-config/kubernetes/ against the application's own rules and settings. That the
 * variables are real settings and the probe paths answer needs the running service: {@link DeploymentSettingsTest}.
 */
class KubernetesManifestsTest {

    private final KubernetesManifests manifests = KubernetesManifests.load();

    @Test
    void eachNodesTransactionManagerNameIsItsPodNameAndPassesTheNameRules() {
        List<String> pods = manifests.podNames();
        assertThat(pods).hasSizeGreaterThanOrEqualTo(2);
        for (String pod : pods) {
            String tmName = new PodSettings(manifests.environment(pod)).bind("lockstep", LockstepProperties.class).tm().uniqueName();
            // the length limit (40 bytes) and the shape that keeps names prefix-free, as the node's startup checks them
            assertThatCode(() -> TransactionManagerName.validate(tmName)).doesNotThrowAnyException();
            assertThat(tmName).as("the name of pod %s", pod).isEqualTo(pod + ".tm");
        }
    }

    @Test
    void theGracePeriodCoversThePreStopPauseTheDrainAndTheTransactionTimeoutWithinTheLease() {
        PodSettings settings = new PodSettings(manifests.environment(manifests.podNames().get(0)));
        assertThat(settings.bind("server", ServerProperties.class).getShutdown())
                .as("server.shutdown: without a graceful shutdown there is no drain").isEqualTo(Shutdown.GRACEFUL);
        Duration drain = settings.bind("spring.lifecycle", LifecycleProperties.class).getTimeoutPerShutdownPhase();
        Duration transactionTimeout = settings.bind("lockstep", LockstepProperties.class).tm().defaultTimeout();
        Duration preStop = Duration.ofSeconds(manifests.container().getLifecycle().getPreStop().getSleep().getSeconds());

        long grace = manifests.nodes().getSpec().getTemplate().getSpec().getTerminationGracePeriodSeconds();
        // the stop's own work after the drain (Atomikos, the pools, the lease), as docs/operations.md counts it
        Duration stopping = Duration.ofSeconds(10);
        assertThat(Duration.ofSeconds(grace)).as("terminationGracePeriodSeconds against preStop %s + drain %s + transaction"
                + " timeout %s + stopping %s", preStop, drain, transactionTimeout, stopping)
                .isGreaterThanOrEqualTo(preStop.plus(drain).plus(transactionTimeout).plus(stopping));
    }

    @Test
    void theProbesAskTheActuatorsProbeGroupsOnTheServedPort() {
        Container container = manifests.container();
        assertThat(path(container.getReadinessProbe())).isEqualTo("/actuator/health/readiness");
        assertThat(path(container.getLivenessProbe())).isEqualTo("/actuator/health/liveness");
        assertThat(path(container.getStartupProbe())).isEqualTo("/actuator/health/liveness");
        for (Probe probe : List.of(container.getReadinessProbe(), container.getLivenessProbe(), container.getStartupProbe())) {
            assertThat(container.getPorts()).anyMatch(port -> port.getName().equals(probe.getHttpGet().getPort().getStrVal()));
        }
    }

    @Test
    void everySecretTheNodesReadIsDeclaredWithThatKey() {
        List<EnvVar> fromSecrets = manifests.container().getEnv().stream()
                .filter(variable -> variable.getValueFrom() != null && variable.getValueFrom().getSecretKeyRef() != null).toList();
        assertThat(fromSecrets).extracting(EnvVar::getName).contains("LOCKSTEP_DB_BUSINESS_PASSWORD",
                "LOCKSTEP_DB_WORKFLOW_PASSWORD", "LOCKSTEP_PUBLISH_CATALOG_TOKEN");
        for (EnvVar variable : fromSecrets) {
            Secret secret = manifests.one(Secret.class, variable.getValueFrom().getSecretKeyRef().getName());
            Map<String, String> keys = new HashMap<>();
            if (secret.getData() != null) {
                keys.putAll(secret.getData());
            }
            if (secret.getStringData() != null) {
                keys.putAll(secret.getStringData());
            }
            assertThat(keys).as(variable.getName()).containsKey(variable.getValueFrom().getSecretKeyRef().getKey());
        }
        // none in plain sight
        assertThat(manifests.container().getEnv()).filteredOn(v -> v.getName().matches(".*(PASSWORD|TOKEN).*"))
                .allMatch(v -> v.getValue() == null);
    }

    @Test
    void everyNodeSignsCheckpointsWithTheClustersOneKeyFromItsSecret() {
        String keyFile = manifests.environment(manifests.podNames().get(0)).get("LOCKSTEP_AUDIT_SIGNING_KEY_FILE");
        assertThat(keyFile).as("lockstep.audit.signing-key-file: else each pod generates a key of its own").isNotNull();
        VolumeMount mount = manifests.container().getVolumeMounts().stream()
                .filter(candidate -> Path.of(keyFile).getParent().equals(Path.of(candidate.getMountPath()))).findFirst()
                .orElseThrow(() -> new AssertionError("no volume is mounted where " + keyFile + " lies"));
        String secretName = manifests.nodes().getSpec().getTemplate().getSpec().getVolumes().stream()
                .filter(volume -> volume.getName().equals(mount.getName())).findFirst().orElseThrow().getSecret().getSecretName();
        Secret secret = manifests.one(Secret.class, secretName);
        assertThat(secret.getStringData()).containsKey(Path.of(keyFile).getFileName().toString());
        assertThat(mount.getReadOnly()).isTrue();
    }

    @Test
    void theServicesAndTheDisruptionBudgetSelectTheNodes() {
        StatefulSet nodes = manifests.nodes();
        Map<String, String> podLabels = nodes.getSpec().getTemplate().getMetadata().getLabels();
        for (Service service : manifests.all(Service.class)) {
            assertThat(podLabels).as(service.getMetadata().getName()).containsAllEntriesOf(service.getSpec().getSelector());
        }
        assertThat(manifests.one(Service.class, nodes.getSpec().getServiceName()).getSpec().getClusterIP())
                .as("a StatefulSet's governing Service is headless").isEqualTo("None");

        PodDisruptionBudget budget = manifests.one(PodDisruptionBudget.class, KubernetesManifests.NODES);
        assertThat(podLabels).containsAllEntriesOf(budget.getSpec().getSelector().getMatchLabels());
        // one node at a time: a drain never takes more than one, and is never blocked for good
        assertThat(budget.getSpec().getMaxUnavailable().getIntVal()).isEqualTo(1);
    }

    @Test
    void theCoordinatorLogIsOnTheNodesOwnPersistentVolume() {
        String logDir = new PodSettings(manifests.environment(manifests.podNames().get(0)))
                .bind("lockstep", LockstepProperties.class).tm().logDir().toString();
        List<String> claims = manifests.nodes().getSpec().getVolumeClaimTemplates().stream()
                .map(PersistentVolumeClaim::getMetadata).map(metadata -> metadata.getName()).toList();
        assertThat(manifests.container().getVolumeMounts()).filteredOn(mount -> claims.contains(mount.getName()))
                .extracting(VolumeMount::getMountPath).anyMatch(path -> Path.of(logDir).startsWith(path));
    }

    @Test
    void thePodRunsAsTheImagesNonRootUser() {
        var security = manifests.nodes().getSpec().getTemplate().getSpec().getSecurityContext();
        assertThat(security.getRunAsNonRoot()).isTrue();
        assertThat(Long.toString(security.getRunAsUser())).isEqualTo(Containerfile.read().user());
    }

    private static String path(Probe probe) {
        return probe.getHttpGet().getPath();
    }
}
