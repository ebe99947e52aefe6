package dev.lockstep.chaos.support;

import dev.lockstep.support.ServiceJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

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

    /** Demo users in external mode (the service never has demo users there unless configured); two admins for four-eyes changes. */
    private static final String[][] USERS = {
            {"alice", "APPLICANT", ""},
            {"bob", "APPROVER", "managers"},
            {"carol", "APPROVER", "legal"},
            {"dave", "APPROVER", "finance"},
            {"frank", "APPROVER", "directors"},
            {"erin", "ADMIN", ""},
            {"grace", "ADMIN", ""},
            {"dba1", "DBA", ""},
            {"dba2", "DBA", ""},
    };

    /**
     * Where the service keeps its coordinator log (lockstep.tm.log): {@code database}, external mode's default and what CI
     * runs, or {@code file} with {@code -Dchaos.tmLog=file}; the scenarios are the same for both.
     */
    public static final String TM_LOG = System.getProperty("chaos.tmLog", "database");
    /** The coordinator log setting; a harness that needs one store whatever the run's (the cluster's) sets it itself. */
    public static final String TM_LOG_SETTING = "--lockstep.tm.log=";

    /** The switch of the engine's job executor (timer firings); off unless the harness's settings turn it on. */
    public static final String JOBS_ENABLED = "--lockstep.engine.jobs.enabled=";

    private final Path jar;
    private final Path home;
    private final int httpPort;
    private final PostgresServer business;
    private final PostgresServer workflow;
    private String businessUrl;
    private final String workflowUrl;
    private final List<String> settings;
    private ServiceJvm jvm;
    private Timeouts timeouts;
    private int starts;

    /**
     * {@code businessUrl}, {@code workflowUrl}: how the service reaches each database (through the test's TCP proxies);
     * {@code settings}: more {@code --name=value} arguments for every start.
     */
    public ServiceProcess(Path jar, Path home, int httpPort, PostgresServer business, PostgresServer workflow, String businessUrl,
            String workflowUrl, List<String> settings) {
        this.businessUrl = businessUrl;
        this.workflowUrl = workflowUrl;
        this.settings = List.copyOf(settings);
        this.jar = jar;
        this.home = home;
        this.httpPort = httpPort;
        this.business = business;
        this.workflow = workflow;
    }

    /** Starts the JVM and waits until it answers HTTP. {@code agentScript} may be null. */
    public Duration start(String tmUniqueName, Path bytemanJar, Path agentScript, Timeouts timeouts) {
        long t0 = System.nanoTime();
        List<String> jvmArgs = new ArrayList<>(List.of("-Xms256m", "-Xmx768m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
        if (agentScript != null) {
            jvmArgs.add("-javaagent:" + bytemanJar + "=script:" + agentScript);
        }
        List<String> cmd = new ArrayList<>(List.of(
                "--server.port=" + httpPort,
                "--lockstep.mode=external",
                "--lockstep.home=" + home,
                "--lockstep.tm.log-dir=" + home.toAbsolutePath().resolve("atomikos"),
                "--lockstep.tm.unique-name=" + tmUniqueName,
                "--lockstep.tm.default-timeout=" + timeouts.transaction.toSeconds() + "s",
                "--lockstep.tm.max-timeout=" + timeouts.max.toSeconds() + "s",
                "--lockstep.tm.recovery-delay=2s",
                // as in production just above max-timeout: a DBA may act once the owner could have finished by itself
                "--lockstep.recovery.owner-window=" + timeouts.max.plusSeconds(2).toSeconds() + "s",
                // the suite's invariant checker is the judge here; no background repair in between
                "--lockstep.reconciliation.enabled=false",
                "--lockstep.db.business.url=" + businessUrl,
                "--lockstep.db.business.username=" + business.username(),
                "--lockstep.db.business.password=" + business.password(),
                "--lockstep.db.workflow.url=" + workflowUrl,
                "--lockstep.db.workflow.username=" + workflow.username(),
                "--lockstep.db.workflow.password=" + workflow.password(),
                "--logging.level.com.atomikos=INFO"));
        // the engine's job executor polls in JTA transactions of its own, whose coordinator-log writes a halt
        // rule armed for a use case could catch; only a harness that crashes a timer firing turns it on
        // (DeadlineAndArchivalChaosIT, whose halt rule fires only on the escalating thread)
        if (settings.stream().noneMatch(s -> s.startsWith(JOBS_ENABLED))) {
            cmd.add(JOBS_ENABLED + "false");
        }
        if (settings.stream().noneMatch(s -> s.startsWith(TM_LOG_SETTING))) {
            cmd.add(TM_LOG_SETTING + TM_LOG);
        }
        for (int i = 0; i < USERS.length; i++) {
            cmd.add("--lockstep.security.users[" + i + "].name=" + USERS[i][0]);
            cmd.add("--lockstep.security.users[" + i + "].password={noop}" + LockstepClient.PASSWORD);
            cmd.add("--lockstep.security.users[" + i + "].roles=" + USERS[i][1]);
            if (!USERS[i][2].isEmpty()) {
                cmd.add("--lockstep.security.users[" + i + "].groups=" + USERS[i][2]);
            }
        }
        // the groups a deployed definition may name, as an operator configures them for her users (issue 30)
        cmd.add("--lockstep.definitions.groups=" + String.join(",", java.util.Arrays.stream(USERS).map(user -> user[2])
                .filter(group -> !group.isEmpty()).toList()));
        cmd.addAll(settings);
        this.timeouts = timeouts;
        starts++;
        jvm = ServiceJvm.start(jvmArgs, ServiceJvm.jar(jar), cmd, Map.of(), home.resolve("service-" + starts + ".log"), httpPort);
        // Any HTTP answer means the context is up (health may be DOWN or need auth); a busy 2-core machine has taken 113 s.
        jvm.awaitHealth(Duration.ofSeconds(240), status -> true);
        return Duration.ofNanos(System.nanoTime() - t0);
    }

    /** Waits for the JVM to end by itself (a Byteman rule halted it) and returns its exit code. */
    public int awaitExit(Duration timeout) {
        if (!jvm.awaitExit(timeout)) {
            throw new AssertionError("service did not halt within " + timeout + "; the fault point was not reached; see " + jvm.log());
        }
        return jvm.exitValue();
    }

    /** SIGKILL: no shutdown hooks, no Atomikos shutdown, exactly like a machine losing the process. */
    public void kill9() {
        jvm.kill9();
    }

    /** The JVM's process id, e.g. to send it a signal ({@link #signal}). */
    public long pid() {
        return jvm.pid();
    }

    /** Sends {@code signal} ({@code STOP}, {@code CONT}, {@code TERM}) to the JVM with kill(1). */
    public void signal(String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(jvm.pid())).redirectErrorStream(true).start();
            String output = new String(kill.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            if (kill.waitFor() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + jvm.pid() + " failed: " + output);
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Waits until the readiness probe answers 200: the node takes traffic (docs/operations.md). */
    public void awaitReady(Duration timeout) {
        jvm.awaitAnswer("/actuator/health/readiness", timeout, status -> status == 200);
    }

    /** Everything the current JVM printed so far. */
    public String output() {
        return jvm.output();
    }

    public int httpPort() {
        return httpPort;
    }

    /** A normal shutdown between scenarios. */
    public void stop() {
        if (jvm != null) {
            jvm.stop(Duration.ofSeconds(30));
        }
    }

    /** After a failover: the next start reaches the business database at {@code url} (the promoted standby). */
    public void pointBusinessAt(String url) {
        this.businessUrl = url;
    }

    public Timeouts timeouts() {
        return timeouts;
    }

    public boolean isAlive() {
        return jvm != null && jvm.isAlive();
    }

    public String baseUrl() {
        return "http://localhost:" + httpPort;
    }

    public Path log() {
        return jvm.log();
    }

    public Path home() {
        return home;
    }
}
