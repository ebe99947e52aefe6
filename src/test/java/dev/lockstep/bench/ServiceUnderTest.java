package dev.lockstep.bench;

import dev.lockstep.support.ServiceJvm;
import java.io.Closeable;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The built service in its own JVM, on fresh embedded databases under {@code outputDir/var-<name>},
 * on free ports the harness chose, so it can read the databases' own statistics afterwards.
 */
final class ServiceUnderTest implements Closeable {

    enum Deployment {
        /** Two PostgreSQL servers committed together through XA (the default deployment). */
        XA("embedded", Map.of("business", "lockstep_business", "workflow", "lockstep_workflow")),
        /** One PostgreSQL server under a local transaction manager. */
        SINGLE("single", Map.of("single", "lockstep"));

        final String mode;
        final Map<String, String> databases;

        Deployment(String mode, Map<String, String> databases) {
            this.mode = mode;
            this.databases = databases;
        }
    }

    private static final Duration STARTUP_LIMIT = Duration.ofMinutes(10);

    final Deployment deployment;
    /** database name to JDBC URL, for statistics the harness reads with plain SQL. */
    final Map<String, String> jdbcUrls;
    private final Path home;
    private final ServiceJvm jvm;

    private ServiceUnderTest(Deployment deployment, Map<String, String> jdbcUrls, Path home, ServiceJvm jvm) {
        this.deployment = deployment;
        this.jdbcUrls = jdbcUrls;
        this.home = home;
        this.jvm = jvm;
    }

    static ServiceUnderTest start(Deployment deployment, BenchmarkSettings settings, List<String> extraArgs) throws IOException {
        return start(deployment, deployment.name().toLowerCase(), settings, extraArgs);
    }

    /** {@code name} keeps the data directory ({@code var-<name>}) and the log ({@code <name>-service.log}) apart. */
    static ServiceUnderTest start(Deployment deployment, String name, BenchmarkSettings settings, List<String> extraArgs)
            throws IOException {
        Path home = settings.outputDir().resolve("var-" + name).toAbsolutePath();
        deleteRecursively(home);
        return start(deployment, settings, home, name + "-service.log", List.of(), extraArgs);
    }

    /**
     * Starts the service on {@code home} as it is: a fresh directory, or the data and coordinator log a
     * previous (halted) service left there. {@code jvmArgs} go before the launch, e.g. a Java agent.
     */
    static ServiceUnderTest start(Deployment deployment, BenchmarkSettings settings, Path home, String logName,
            List<String> jvmArgs, List<String> extraArgs) throws IOException {
        Files.createDirectories(home);
        int httpPort = ServiceJvm.freePort();
        // the collector the image runs (xa-config/container/Containerfile)
        List<String> jvm = new ArrayList<>(List.of("-Xmx768m", "-XX:+UseParallelGC"));
        jvm.addAll(jvmArgs);
        List<String> arguments = new ArrayList<>(List.of("--lockstep.mode=" + deployment.mode, "--lockstep.home=" + home,
                "--server.port=" + httpPort,
                "--lockstep.tm.unique-name=lockstep-bench.tm", "--logging.level.root=WARN",
                // nothing in the background while the load is measured
                "--lockstep.reconciliation.enabled=false"));
        Map<String, String> urls = new LinkedHashMap<>();
        deployment.databases.forEach((role, database) -> {
            int port = ServiceJvm.freePort();
            arguments.add("--lockstep.embedded." + role + "-port=" + port);
            urls.put(database, "jdbc:postgresql://localhost:" + port + "/" + database);
        });
        arguments.addAll(extraArgs);
        ServiceUnderTest service = new ServiceUnderTest(deployment, urls, home, ServiceJvm.start(jvm, settings.launch(), arguments,
                Map.of(), settings.outputDir().resolve(logName), httpPort));
        try {
            service.jvm.awaitHealth(STARTUP_LIMIT, status -> status == 200);
        } catch (IllegalStateException e) {
            service.close();
            throw new IllegalStateException(deployment + ": " + e.getMessage(), e);
        }
        return service;
    }

    String baseUrl() {
        return jvm.baseUrl();
    }

    /** CPU seconds so far of the service JVM, each of its PostgreSQL servers (by database) and the load generator. */
    long pid() {
        return jvm.pid();
    }

        Map<String, Double> cpuSeconds() {
        Map<String, Path> dataDirectories = new LinkedHashMap<>();
        deployment.databases.forEach((role, database) -> dataDirectories.put(database, home.resolve("pg-" + role)));
        return ProcessCpu.sample(jvm.pid(), dataDirectories);
    }

    /** The Prometheus text the service exposes (as the demo admin erin): the XA phase timers, among others. */
    String prometheus() throws IOException, InterruptedException {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(baseUrl()
                        + "/actuator/prometheus")).header("Authorization", "Basic " + Base64.getEncoder()
                        .encodeToString("erin:lockstep".getBytes(StandardCharsets.UTF_8))).build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException(deployment + " /actuator/prometheus answered " + response.statusCode());
        }
        return response.body();
    }

    /** Waits for the JVM to end by itself (a Byteman rule halted it); false when it still runs after {@code limit}. */
    boolean awaitExit(Duration limit) {
        return jvm.awaitExit(limit);
    }

    @Override
    public void close() {
        jvm.stop(Duration.ofSeconds(60));
    }

    static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static void deleteRecursively(Path directory) throws IOException {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
