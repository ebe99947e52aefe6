package dev.lockstep.platform.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.support.ServiceJvm;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The image's start without an image: the packaged jar's layers extracted with the Containerfile's own RUN
 * line, laid out as its COPY lines lay them, and started with its ENTRYPOINT in its WORKDIR and ENV (on the
 * embedded default here: no database to point it at). Runs after {@code package} (failsafe, {@code mvn verify}).
 */
class ContainerEntrypointRun {

    private static final Duration STARTUP = Duration.ofMinutes(3);

    @TempDir
    Path work;

    @Test
    void theExtractedLayersStartWithTheEntrypointAndBecomeReady() throws Exception {
        Path jar = Path.of(System.getProperty("lockstep.jar", "")).toAbsolutePath();
        assertThat(jar).as("the packaged jar (system property lockstep.jar, set by the failsafe run of mvn verify)").isRegularFile();
        Containerfile containerfile = Containerfile.read();

        // the first stage: the jar under the name the RUN line uses, in that stage's WORKDIR
        Path build = Files.createDirectories(work.resolve("build"));
        Files.createSymbolicLink(build.resolve("lockstep.jar"), jar);
        List<String> extract = new ArrayList<>(containerfile.extractCommand());
        assertThat(extract.get(0)).isEqualTo("java");
        extract.set(0, java());
        Process extraction = new ProcessBuilder(extract).directory(build.toFile()).redirectErrorStream(true)
                .redirectOutput(work.resolve("extract.log").toFile()).start();
        assertThat(extraction.waitFor(2, TimeUnit.MINUTES)).isTrue();
        assertThat(extraction.exitValue()).as(Files.readString(work.resolve("extract.log"))).isZero();
        // the final stage takes only the layers (and the temp dir's clean-up would warn about a link leading out of it)
        Files.delete(build.resolve("lockstep.jar"));

        // the final stage: each layer copied over the WORKDIR in the Containerfile's order
        Path app = Files.createDirectories(work.resolve("app"));
        String buildStageDir = containerfile.all("WORKDIR").get(0);
        List<String> layers = containerfile.copiedFromEarlierStage();
        assertThat(layers).hasSize(4);
        for (String layer : layers) {
            copyOver(build.resolve(Path.of(buildStageDir).relativize(Path.of(layer))), app);
        }

        List<String> entrypoint = containerfile.entrypoint();
        assertThat(entrypoint.get(0)).isEqualTo("java");
        int port = ServiceJvm.freePort();
        Map<String, String> environment = new HashMap<>(containerfile.environment());
        // what a pod would set instead: a writable home, free ports for this machine
        environment.put("LOCKSTEP_HOME", work.resolve("home").toString());
        environment.put("SERVER_PORT", Integer.toString(port));
        environment.put("LOCKSTEP_EMBEDDED_BUSINESS_PORT", "0");
        environment.put("LOCKSTEP_EMBEDDED_WORKFLOW_PORT", "0");
        ServiceJvm service = ServiceJvm.startIn(app, entrypoint.subList(1, entrypoint.size()), environment,
                work.resolve("service.log"), port);
        try {
            service.awaitAnswer("/actuator/health/readiness", STARTUP, status -> status == 200);
            HttpResponse<String> readiness = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create(service.baseUrl() + "/actuator/health/readiness")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(readiness.statusCode()).isEqualTo(200);
            assertThat(readiness.body()).contains("\"status\":\"UP\"");
        } finally {
            service.stop(Duration.ofSeconds(60));
        }
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** COPY src/ dest/: the tree's files into dest, merged with what earlier layers put there (hard links: no 200 MB copy). */
    private static void copyOver(Path source, Path target) throws IOException {
        try (Stream<Path> files = Files.walk(source)) {
            for (Path file : files.toList()) {
                Path copy = target.resolve(source.relativize(file).toString());
                try {
                    if (Files.isDirectory(file)) {
                        Files.createDirectories(copy);
                    } else {
                        Files.createLink(copy, file);
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
    }
}
