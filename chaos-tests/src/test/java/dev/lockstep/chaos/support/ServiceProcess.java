package dev.lockstep.chaos.support;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The built service ({@code java -jar lockstep.jar}) as a separate JVM in external mode, pointed
 * at the two test-owned PostgreSQL servers, optionally with a Byteman agent script attached.
 */
public final class ServiceProcess {

    /**
     * Transaction-manager timings of one service JVM. Atomikos' COMMITTING record expires with the
     * transaction's timeout; recovery replays only expired records, to the resources registered at that
     * pass, then forgets them, and the workflow pool registers later at startup than the business pool.
     * So a logged decision reaches both branches after a crash only if the restart has registered both
     * pools before the record expires: LONG (90 s) for JVMs whose decision must outlive their crash
     * (recovery then waits for that expiry). SHORT for quick presumed abort (an unknown prepared XID is
     * rolled back once watched for max_timeout) and for the timeout scenario.
     */
    public enum Timeouts {
        SHORT(Duration.ofSeconds(8), Duration.ofSeconds(10)),
        LONG(Duration.ofSeconds(90), Duration.ofSeconds(90));

        final Duration transaction;
        final Duration max;

        Timeouts(Duration transaction, Duration max) {
            this.transaction = transaction;
            this.max = max;
        }
    }

    /** Demo users in external mode (the service never has demo users there unless configured). */
    private static final String[][] USERS = {
            {"alice", "APPLICANT", ""},
            {"bob", "APPROVER", "managers"},
            {"carol", "APPROVER", "legal"},
            {"dave", "APPROVER", "finance"},
            {"frank", "APPROVER", "directors"},
            {"erin", "ADMIN", ""},
    };

    private final Path jar;
    private final Path home;
    private final int httpPort;
    private final PostgresServer business;
    private final PostgresServer workflow;
    private final String workflowUrl;
    private Process process;
    private Timeouts timeouts;
    private Path log;
    private int starts;

    /** {@code workflowUrl}: how the service reaches the workflow database (through the test's TCP proxy). */
    public ServiceProcess(Path jar, Path home, int httpPort, PostgresServer business, PostgresServer workflow, String workflowUrl) {
        this.workflowUrl = workflowUrl;
        this.jar = jar;
        this.home = home;
        this.httpPort = httpPort;
        this.business = business;
        this.workflow = workflow;
    }

    /** Starts the JVM and waits until it answers HTTP. {@code agentScript} may be null. */
    public Duration start(String tmUniqueName, Path bytemanJar, Path agentScript, Timeouts timeouts) {
        long t0 = System.nanoTime();
        List<String> cmd = new ArrayList<>(List.of(javaBinary(), "-Xms256m", "-Xmx768m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
        if (agentScript != null) {
            cmd.add("-javaagent:" + bytemanJar + "=script:" + agentScript);
        }
        cmd.addAll(List.of("-jar", jar.toString(),
                "--server.port=" + httpPort,
                "--lockstep.mode=external",
                "--lockstep.home=" + home,
                "--lockstep.tm.log-dir=" + home.toAbsolutePath().resolve("atomikos"),
                "--lockstep.tm.unique-name=" + tmUniqueName,
                "--lockstep.tm.default-timeout=" + timeouts.transaction.toSeconds() + "s",
                "--lockstep.tm.max-timeout=" + timeouts.max.toSeconds() + "s",
                "--lockstep.tm.recovery-delay=2s",
                "--lockstep.db.business.url=" + business.jdbcUrl(),
                "--lockstep.db.business.username=" + business.username(),
                "--lockstep.db.business.password=" + business.password(),
                "--lockstep.db.workflow.url=" + workflowUrl,
                "--lockstep.db.workflow.username=" + workflow.username(),
                "--lockstep.db.workflow.password=" + workflow.password(),
                "--logging.level.com.atomikos=INFO"));
        for (int i = 0; i < USERS.length; i++) {
            cmd.add("--lockstep.security.users[" + i + "].name=" + USERS[i][0]);
            cmd.add("--lockstep.security.users[" + i + "].password={noop}" + LockstepClient.PASSWORD);
            cmd.add("--lockstep.security.users[" + i + "].roles=" + USERS[i][1]);
            if (!USERS[i][2].isEmpty()) {
                cmd.add("--lockstep.security.users[" + i + "].groups=" + USERS[i][2]);
            }
        }
        this.timeouts = timeouts;
        starts++;
        log = home.resolve("service-" + starts + ".log");
        try {
            Files.createDirectories(home);
            process = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        awaitHttp(Duration.ofSeconds(240)); // a busy 2-core machine has taken 113 s
        return Duration.ofNanos(System.nanoTime() - t0);
    }

    private void awaitHttp(Duration timeout) {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("service exited with " + process.exitValue() + " during startup; see " + log);
            }
            try {
                http.send(HttpRequest.newBuilder(URI.create(baseUrl() + "/actuator/health")).timeout(Duration.ofSeconds(2))
                        .build(), HttpResponse.BodyHandlers.discarding());
                return; // any HTTP answer means the context is up (health may be DOWN or need auth)
            } catch (IOException e) {
                sleep(250);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        throw new IllegalStateException("service did not answer HTTP within " + timeout + "; see " + log);
    }

    /** Waits for the JVM to end by itself (a Byteman rule halted it) and returns its exit code. */
    public int awaitExit(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("service did not halt within " + timeout + "; the fault point was not reached; see " + log);
            }
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** SIGKILL: no shutdown hooks, no Atomikos shutdown, exactly like a machine losing the process. */
    public void kill9() {
        process.destroyForcibly();
        awaitExit(Duration.ofSeconds(30));
    }

    /** A normal shutdown between scenarios. */
    public void stop() {
        if (process != null && process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    kill9();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    public Timeouts timeouts() {
        return timeouts;
    }

    public boolean isAlive() {
        return process != null && process.isAlive();
    }

    public String baseUrl() {
        return "http://localhost:" + httpPort;
    }

    public Path log() {
        return log;
    }

    public Path home() {
        return home;
    }

    private static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
