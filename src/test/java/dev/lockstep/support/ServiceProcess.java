package dev.lockstep.support;

import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.platform.DatabaseSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The service from the test class path in a JVM of its own ({@link ServiceJvm}), configured only
 * through environment variables, for tests of startup and of several nodes.
 */
public final class ServiceProcess implements AutoCloseable {

    private static final Duration STARTUP = Duration.ofMinutes(3);

    private final ServiceJvm jvm;
    private final HttpClient http = HttpClient.newHttpClient();

    private ServiceProcess(ServiceJvm jvm) {
        this.jvm = jvm;
    }

    /** Starts the service; {@code home} holds its Atomikos log and the captured console output. */
    public static ServiceProcess start(Path home, Map<String, String> environment) throws IOException {
        return start(home, environment, List.of());
    }

    /** As {@link #start(Path, Map)}, with further JVM options (e.g. {@link SecondNode#bytemanAgent}). */
    public static ServiceProcess start(Path home, Map<String, String> environment, List<String> jvmOptions)
            throws IOException {
        int port = ServiceJvm.freePort();
        Map<String, String> variables = new HashMap<>();
        // The file log, which external mode no longer defaults to, stays tested by these nodes (the chaos suite's run
        // on the database log); it needs an absolute directory. A test may set either.
        variables.put("LOCKSTEP_TM_LOG", "file");
        variables.put("LOCKSTEP_TM_LOG_DIR", home.resolve("atomikos").toAbsolutePath().toString());
        variables.put("LOCKSTEP_RECONCILIATION_ENABLED", "false");
        variables.putAll(environment);
        variables.put("LOCKSTEP_HOME", home.toAbsolutePath().toString());
        variables.put("SERVER_PORT", Integer.toString(port));
        List<String> jvm = new ArrayList<>(List.of("-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
        jvm.addAll(jvmOptions);
        return new ServiceProcess(ServiceJvm.start(jvm, ServiceJvm.testClasspath(), List.of(), variables, home.resolve("console.log"), port));
    }

    /**
     * The environment of a node in external mode named {@code tmName} on the two databases of
     * {@code endpoints} (typically the shared test context's), for tests that run a second node.
     */
    public static Map<String, String> externalModeOn(DatabaseEndpoints endpoints, String tmName) {
        Map<String, String> environment = new HashMap<>();
        environment.put("LOCKSTEP_MODE", "external");
        environment.put("LOCKSTEP_TM_UNIQUE_NAME", tmName);
        for (String database : new String[] {"business", "workflow"}) {
            DatabaseSettings settings = database.equals("business") ? endpoints.business() : endpoints.workflow();
            String prefix = "LOCKSTEP_DB_" + database.toUpperCase() + "_";
            environment.put(prefix + "URL", settings.url());
            environment.put(prefix + "USERNAME", settings.username());
            environment.put(prefix + "PASSWORD", settings.password() == null ? "" : settings.password());
        }
        return environment;
    }

    /** Waits until the service answers HTTP; fails with its console output if it stopped instead. */
    public ServiceProcess awaitUp() {
        try {
            jvm.awaitHealth(STARTUP, status -> true);
        } catch (IllegalStateException e) {
            throw new AssertionError(e.getMessage(), e);
        }
        return this;
    }

    /** Waits for the JVM to end by itself (a startup that fails, a Byteman rule that halts it); returns the exit code. */
    public int awaitExit() {
        if (!jvm.awaitExit(STARTUP)) {
            throw new AssertionError("the service kept running although its startup should have failed:\n" + output());
        }
        return jvm.exitValue();
    }

    /** An HTTP Basic {@code Authorization} header value. */
    public static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    public String baseUrl() {
        return jvm.baseUrl();
    }

    /** Ends the service as a crash would (SIGKILL): no shutdown hook, no log checkpoint. */
    public void kill() {
        jvm.kill9();
    }

    public HttpResponse<String> get(String path, String authorization) {
        return send(HttpRequest.newBuilder(URI.create(jvm.baseUrl() + path)), authorization);
    }

    /** A JSON POST (no body when {@code json} is null) under a fresh Idempotency-Key. */
    public HttpResponse<String> post(String path, String authorization, String json) {
        return post(path, authorization, json, UUID.randomUUID().toString());
    }

    /** A JSON POST (no body when {@code json} is null) under the given Idempotency-Key. */
    public HttpResponse<String> post(String path, String authorization, String json, String idempotencyKey) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(jvm.baseUrl() + path))
                .header("Idempotency-Key", idempotencyKey)
                .header("Accept", "application/json, application/problem+json");
        if (json == null) {
            request.POST(HttpRequest.BodyPublishers.noBody());
        } else {
            request.header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json));
        }
        return send(request, authorization);
    }

    private HttpResponse<String> send(HttpRequest.Builder request, String authorization) {
        request.timeout(Duration.ofSeconds(30));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        try {
            return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public String output() {
        return jvm.output();
    }

    /** SIGTERM, as Kubernetes or an init system sends it, without waiting for the JVM to end. */
    public void terminate() {
        ProcessHandle.of(jvm.pid()).ifPresent(ProcessHandle::destroy);
    }

    /** The exit code of a JVM that was asked to stop; fails with its console output if it still runs after {@code limit}. */
    public int exitCodeWithin(Duration limit) {
        if (!jvm.awaitExit(limit)) {
            throw new AssertionError("the service still ran " + limit + " after it was asked to stop:\n" + output());
        }
        return jvm.exitValue();
    }

    /** An orderly stop, as an init system asks for one (SIGTERM); the exit code (SIGKILL's if it took over 3 min). */
    public int stop() {
        jvm.stop(STARTUP);
        return jvm.exitValue();
    }

    @Override
    public void close() {
        jvm.stop(Duration.ofSeconds(60));
    }
}
