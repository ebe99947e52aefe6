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
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
import java.util.stream.Collectors;

/**
 * The service in a JVM of its own, the way an operator starts it: the one launcher the recovery tests,
 * the chaos suite and the benchmark share. A second service inside a test JVM is not an option: Atomikos
 * is a JVM-wide singleton.
 */
public final class ServiceJvm {

    private final Process process;
    private final Path log;
    private final int httpPort;

    private ServiceJvm(Process process, Path log, int httpPort) {
        this.process = process;
        this.log = log;
        this.httpPort = httpPort;
    }

    /**
     * Starts {@code java <jvmArgs> <launch> <appArgs>} with its console in {@code log}. {@code launch}
     * is {@link #jar} or {@link #testClasspath}; {@code environment} replaces every LOCKSTEP_* and
     * SPRING_* variable of the calling shell, so only what the caller sets configures the service.
     */
    public static ServiceJvm start(List<String> jvmArgs, List<String> launch, List<String> appArgs,
            Map<String, String> environment, Path log, int httpPort) {
        List<String> command = new ArrayList<>();
        command.addAll(jvmArgs);
        command.addAll(launch);
        command.addAll(appArgs);
        return startIn(null, command, environment, log, httpPort);
    }

    /**
     * Starts {@code java <arguments>} in {@code directory} (null: this one), e.g. a container's entrypoint in its
     * WORKDIR, where the exploded jar's launcher finds its classes; the environment as in {@link #start}.
     */
    public static ServiceJvm startIn(Path directory, List<String> arguments, Map<String, String> environment, Path log,
            int httpPort) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(arguments);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        if (directory != null) {
            builder.directory(directory.toFile());
        }
        builder.environment().keySet().removeIf(name -> name.startsWith("LOCKSTEP_") || name.startsWith("SPRING_"));
        builder.environment().putAll(environment);
        try {
            Files.createDirectories(log.toAbsolutePath().getParent());
            return new ServiceJvm(builder.start(), log, httpPort);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Launches the packaged Spring Boot jar. */
    public static List<String> jar(Path jar) {
        return List.of("-jar", jar.toString());
    }

    /** Launches the service from the test JVM's class path, without test classes (their configurations must not reach it). */
    public static List<String> testClasspath() {
        List<String> entries = new ArrayList<>(Arrays.asList(System.getProperty("java.class.path").split(File.pathSeparator)));
        entries.removeIf(entry -> Path.of(entry).endsWith("test-classes"));
        return List.of("-cp", entries.stream().collect(Collectors.joining(File.pathSeparator)), LockstepApplication.class.getName());
    }

    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Polls {@code /actuator/health} until it answers with a status {@code accepted} takes; fails with
     * the log's path and tail when the JVM exits first or the limit passes.
     */
    public void awaitHealth(Duration limit, IntPredicate accepted) {
        awaitAnswer("/actuator/health", limit, accepted);
    }

    /** As {@link #awaitHealth}, for another path, e.g. the readiness probe's. */
    public void awaitAnswer(String path, Duration limit, IntPredicate accepted) {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        long deadline = System.nanoTime() + limit.toNanos();
        String lastAnswer = "none";
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the service exited with " + process.exitValue() + " during startup; see "
                        + log + ":\n" + tail());
            }
            try {
                HttpResponse<Void> health = http.send(HttpRequest.newBuilder(URI.create(baseUrl() + path))
                        .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding());
                if (accepted.test(health.statusCode())) {
                    return;
                }
                lastAnswer = Integer.toString(health.statusCode());
            } catch (IOException notYetListening) {
                // still starting
                lastAnswer = notYetListening.toString();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            pause(Duration.ofMillis(250));
        }
        throw new IllegalStateException("the service did not answer as expected within " + limit + " (last answer to "
                + path + ": " + lastAnswer + "); see " + log + ":\n" + tail());
    }

    /** Waits for the JVM to end by itself (a failed startup, a Byteman halt); false if it still runs after {@code limit}. */
    public boolean awaitExit(Duration limit) {
        try {
            return process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public int exitValue() {
        return process.exitValue();
    }

    /** SIGKILL: no shutdown hooks, no Atomikos shutdown, exactly like a machine losing the process. */
    public void kill9() {
        process.destroyForcibly();
        if (!awaitExit(Duration.ofSeconds(30))) {
            throw new IllegalStateException("the service survived SIGKILL for 30 s");
        }
    }

    /** A normal shutdown; SIGKILL if it takes longer than {@code grace}. */
    public void stop(Duration grace) {
        if (process.isAlive()) {
            process.destroy();
            if (!awaitExit(grace)) {
                kill9();
            }
        }
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public long pid() {
        return process.pid();
    }

    public int httpPort() {
        return httpPort;
    }

    public String baseUrl() {
        return "http://127.0.0.1:" + httpPort;
    }

    public Path log() {
        return log;
    }

    /** Everything the service printed so far. */
    public String output() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private String tail() {
        String output = Files.exists(log) ? output() : "";
        return output.length() <= 4000 ? output : output.substring(output.length() - 4000);
    }

    private static void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
