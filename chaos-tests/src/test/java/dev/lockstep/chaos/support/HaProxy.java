package dev.lockstep.chaos.support;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real HAProxy in front of a cluster of service nodes, run by the test as a child process in the foreground
 * ({@code haproxy -db -f cfg}): round robin, each node checked on its readiness probe, and a request whose
 * connection failed or that got no answer at all (the node died under it) sent again, to another node. Lockstep's
 * POSTs carry an Idempotency-Key, which is what makes resending them safe; HAProxy itself resends any method.
 */
public final class HaProxy implements AutoCloseable {

    /** The haproxy executable on the PATH, if any (a fresh CI machine has none: {@code apt-get install haproxy}). */
    public static Optional<Path> executable() {
        return Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                .filter(dir -> !dir.isEmpty())
                .map(dir -> Path.of(dir, "haproxy"))
                .filter(Files::isExecutable)
                .findFirst();
    }

    private final Process process;
    private final int port;
    private final int statsPort;
    private final Path config;
    private final Path log;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    /** {@code nodes}: server name to its HTTP port on 127.0.0.1. */
    public HaProxy(Path executable, Path dir, int port, int statsPort, Map<String, Integer> nodes) {
        this.port = port;
        this.statsPort = statsPort;
        this.config = dir.resolve("haproxy.cfg");
        this.log = dir.resolve("haproxy.log");
        StringBuilder servers = new StringBuilder();
        nodes.forEach((name, nodePort) -> servers.append("    server ").append(name).append(" 127.0.0.1:").append(nodePort)
                .append(" check\n"));
        String cfg = """
                global
                    maxconn 512
                    log stdout format raw local0 info

                defaults
                    mode http
                    log global
                    option httplog
                    timeout connect 2s
                    timeout client 150s
                    # above the clients' own 90 s: a request held on a lock answers before HAProxy gives up
                    timeout server 120s
                    timeout check 2s
                    # a new server connection for every request: HAProxy reuses an idle server connection only with the
                    # understanding that when the server closes it under the request (a node stopping), the client
                    # connection is closed without an answer so that the client resends (http-reuse safe), which no client
                    # does for a POST; on a fresh connection the failure is HAProxy's to retry (seen in ClusterChaosIT 152)
                    option http-server-close
                    # a request whose connection failed, or that got no answer at all, is sent again to another node
                    retries 2
                    option redispatch 1
                    retry-on conn-failure empty-response

                frontend lockstep
                    bind 127.0.0.1:%d
                    default_backend nodes

                backend nodes
                    balance roundrobin
                    option httpchk GET /actuator/health/readiness
                    http-check expect status 200
                    default-server inter 1s fall 2 rise 2
                %s
                listen stats
                    bind 127.0.0.1:%d
                    stats enable
                    stats uri /stats
                """.formatted(port, servers, statsPort);
        try {
            Files.createDirectories(dir);
            Files.writeString(config, cfg);
            process = new ProcessBuilder(executable.toString(), "-db", "-f", config.toString())
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String baseUrl() {
        return "http://127.0.0.1:" + port;
    }

    public Path config() {
        return config;
    }

    public Path log() {
        return log;
    }

    /** Each server's (and the backend's) row of HAProxy's statistics, column name to value ({@code /stats;csv}). */
    public Map<String, Map<String, String>> stats() {
        try {
            HttpResponse<String> csv = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + statsPort + "/stats;csv"))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
            List<String> lines = csv.body().lines().toList();
            String[] header = lines.get(0).replaceFirst("^# ", "").split(",", -1);
            Map<String, Map<String, String>> rows = new LinkedHashMap<>();
            for (String line : lines.subList(1, lines.size())) {
                String[] cells = line.split(",", -1);
                if (cells.length < 2 || !cells[0].equals("nodes")) {
                    continue;
                }
                Map<String, String> row = new LinkedHashMap<>();
                for (int i = 0; i < header.length && i < cells.length; i++) {
                    row.put(header[i], cells[i]);
                }
                rows.put(cells[1], row);
            }
            return rows;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The server's health as HAProxy sees it ("UP", "DOWN", "UP 1/2", ...), or "unknown" while HAProxy does not answer. */
    public String status(String server) {
        try {
            return stats().getOrDefault(server, Map.of()).getOrDefault("status", "unknown");
        } catch (RuntimeException notYet) {
            return "unknown";
        }
    }

    /** Waits until HAProxy's checks have {@code server} UP (or, {@code up} false, DOWN). */
    public void awaitStatus(String server, boolean up, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!(up ? status(server).equals("UP") : status(server).startsWith("DOWN"))) {
            if (!process.isAlive()) {
                throw new IllegalStateException("haproxy exited with " + process.exitValue() + "; see " + log);
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("HAProxy has " + server + " " + status(server) + ", not " + (up ? "UP" : "DOWN")
                        + ", after " + timeout);
            }
            Pause.sleep(200);
        }
    }

    /** The backend's counters: requests resent after a failed or unanswered attempt, and of those sent to another server. */
    public String retries() {
        Map<String, String> backend = stats().getOrDefault("BACKEND", Map.of());
        return "retries (wretr) " + backend.getOrDefault("wretr", "?") + ", redispatches (wredis) "
                + backend.getOrDefault("wredis", "?") + ", responses 5xx " + backend.getOrDefault("hrsp_5xx", "?")
                + ", connection errors (econ) " + backend.getOrDefault("econ", "?") + ", response errors (eresp) "
                + backend.getOrDefault("eresp", "?");
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
