package dev.lockstep.support;

import dev.lockstep.LockstepApplication;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The service in a JVM of its own, started the way an operator starts it and configured only through
 * environment variables. A second service inside the test JVM is not an option: Atomikos is a JVM-wide
 * singleton, and the shared embedded-mode test context already registered the same XA resource names.
 */
public final class ServiceProcess implements AutoCloseable {

    private static final Duration STARTUP = Duration.ofMinutes(3);

    private final Process process;
    private final Path log;
    private final int port;
    private final HttpClient http = HttpClient.newHttpClient();

    private ServiceProcess(Process process, Path log, int port) {
        this.process = process;
        this.log = log;
        this.port = port;
    }

    /** Starts the service; {@code home} holds its Atomikos log and the captured console output. */
    public static ServiceProcess start(Path home, Map<String, String> environment) throws IOException {
        Files.createDirectories(home);
        Path log = home.resolve("console.log");
        int port = freePort();
        ProcessBuilder builder = new ProcessBuilder(javaCommand(), "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", mainClasspath(), LockstepApplication.class.getName())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        // Only what the test sets: no LOCKSTEP_*/SPRING_* leaking in from the developer's shell.
        builder.environment().keySet().removeIf(name -> name.startsWith("LOCKSTEP_") || name.startsWith("SPRING_"));
        builder.environment().putAll(environment);
        builder.environment().put("LOCKSTEP_HOME", home.toAbsolutePath().toString());
        builder.environment().put("SERVER_PORT", Integer.toString(port));
        return new ServiceProcess(builder.start(), log, port);
    }

    /** Waits until the service answers HTTP; fails with its console output if it stopped instead. */
    public ServiceProcess awaitUp() throws InterruptedException {
        Instant deadline = Instant.now().plus(STARTUP);
        while (Instant.now().isBefore(deadline)) {
            if (!process.isAlive()) {
                throw new AssertionError("the service exited with " + process.exitValue() + ":\n" + output());
            }
            try {
                get("/actuator/health", null);
                return this;
            } catch (UncheckedIOException notYet) {
                Thread.sleep(500);
            }
        }
        throw new AssertionError("the service did not answer within " + STARTUP + ":\n" + output());
    }

    /** Waits for a startup that must fail; returns the exit code. */
    public int awaitExit() throws InterruptedException {
        if (!process.waitFor(STARTUP.toSeconds(), TimeUnit.SECONDS)) {
            throw new AssertionError("the service kept running although its startup should have failed:\n" + output());
        }
        return process.exitValue();
    }

    /** An HTTP Basic {@code Authorization} header value. */
    public static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    public HttpResponse<String> get(String path, String authorization) {
        return send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)), authorization);
    }

    /** A JSON POST (no body when {@code json} is null) under a fresh Idempotency-Key. */
    public HttpResponse<String> post(String path, String authorization, String json) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Idempotency-Key", java.util.UUID.randomUUID().toString())
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
        try {
            return Files.readString(log);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
    }

    private static String javaCommand() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** The test JVM's class path without test classes, whose test configurations must not reach the service. */
    private static String mainClasspath() {
        List<String> entries = new ArrayList<>(Arrays.asList(System.getProperty("java.class.path").split(File.pathSeparator)));
        entries.removeIf(entry -> Path.of(entry).endsWith("test-classes"));
        return entries.stream().collect(Collectors.joining(File.pathSeparator));
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
