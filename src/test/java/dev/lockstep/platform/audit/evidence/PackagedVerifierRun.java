package dev.lockstep.platform.audit.evidence;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code java -jar lockstep.jar verify} on the packaged jar, as an auditor runs it: the verifier runs before (and
 * without) Spring. Run by failsafe after {@code package} in {@code mvn verify} (the deployment execution, which sets
 * {@code lockstep.jar}); surefire runs before the jar exists.
 */
class PackagedVerifierRun {

    @TempDir
    Path directory;

    @Test
    void thePackagedJarVerifiesWithoutStartingTheService() throws Exception {
        Path jar = Path.of(System.getProperty("lockstep.jar", ""));
        assertThat(jar).as("the packaged jar (system property lockstep.jar, set by the failsafe run of mvn verify)").isRegularFile();
        Path bundle = directory.resolve("intact.zip");
        String key = SyntheticBundle.write(bundle, 50, 20, directory.resolve("key.pem"));
        Path damaged = BundleVerifierTest.rewrite(bundle, BundleFormat.ENTRIES,
                BundleVerifierTest.readEntry(bundle, BundleFormat.ENTRIES).replace("approver-3", "approver-4"), directory);

        Process intact = run(jar, bundle, key);
        Process broken = run(jar, damaged, key);

        String intactOutput = new String(intact.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(intact.exitValue()).as(intactOutput).isZero();
        assertThat(intactOutput).contains("RESULT INTACT").doesNotContain("Spring");
        assertThat(broken.exitValue()).isEqualTo(1);
        assertThat(new String(broken.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).contains("the entry was changed");
    }

    private static Process run(Path jar, Path bundle, String key) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
                jar.toString(), "verify", bundle.toString(), "--key", key).redirectErrorStream(true).start();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return process;
    }
}
