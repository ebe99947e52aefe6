package dev.lockstep.chaos.support;

import dev.lockstep.support.ServiceJvm;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * The reference asset catalog ({@code dev.lockstep.publishing.catalog.CatalogApplication}) as a process of its own,
 * launched from the same packaged jar as the service, on a PostgreSQL database of its own, on a fixed
 * port so a restarted catalog is found where the service was told to look. A catalog of its own does not start
 * without a token: each instance has a random one, which the service is given ({@link #token()}).
 */
public final class CatalogProcess {

    private static final String LAUNCHER = "org.springframework.boot.loader.launch.PropertiesLauncher";

    private final Path jar;
    private final Path home;
    private final int httpPort;
    private final PostgresServer database;
    private final String token = UUID.randomUUID().toString();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private ServiceJvm jvm;
    private int starts;

    public CatalogProcess(Path jar, Path home, int httpPort, PostgresServer database) {
        this.jar = jar;
        this.home = home;
        this.httpPort = httpPort;
        this.database = database;
    }

    /** Starts the catalog with {@code answerDelay} ({@code lockstep.catalog.answer-delay}, zero: off) and waits until it answers. */
    public void start(Duration answerDelay) {
        List<String> launch = List.of("-Dloader.main=dev.lockstep.publishing.catalog.CatalogApplication", "-cp", jar.toString(), LAUNCHER);
        List<String> args = new ArrayList<>(List.of(
                "--server.port=" + httpPort,
                "--lockstep.catalog.db.url=" + database.jdbcUrl(),
                "--lockstep.catalog.db.username=" + database.username(),
                "--lockstep.catalog.db.password=" + database.password(),
                "--lockstep.catalog.token=" + token,
                "--lockstep.catalog.answer-delay=" + answerDelay.toMillis() + "ms"));
        starts++;
        jvm = ServiceJvm.start(List.of("-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"), launch, args, Map.of(),
                home.resolve("catalog-" + starts + ".log"), httpPort);
        jvm.awaitHealth(Duration.ofSeconds(180), status -> true);
    }

    public void stop() {
        if (jvm != null) {
            jvm.stop(Duration.ofSeconds(30));
        }
    }

    public boolean isAlive() {
        return jvm != null && jvm.isAlive();
    }

    /** The bearer token the publisher is given ({@code lockstep.publish.catalog-token}). */
    public String token() {
        return token;
    }

    /** The base URL the publisher is given ({@code lockstep.publish.catalog-url}). */
    public String catalogUrl() {
        return "http://127.0.0.1:" + httpPort + "/catalog";
    }

    /**
     * The sum of one Prometheus series of this catalog process over every line whose labels contain all
     * of {@code labels} (e.g. {@code result="DUPLICATE"}); 0 when the series has no line yet.
     */
    public double metric(String name, String... labels) {
        String text;
        try {
            text = http.send(HttpRequest.newBuilder(URI.create(jvm.baseUrl() + "/actuator/prometheus")).timeout(Duration.ofSeconds(5))
                    .build(), HttpResponse.BodyHandlers.ofString()).body();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return text.lines()
                .filter(line -> line.startsWith(name + "{") || line.startsWith(name + " "))
                .filter(line -> Stream.of(labels).allMatch(line::contains))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .sum();
    }

    /** The catalog's log lines that contain {@code text}, from every start. */
    public List<String> logLines(String text) {
        try (Stream<Path> logs = Files.list(home)) {
            List<String> lines = new ArrayList<>();
            for (Path log : logs.filter(p -> p.getFileName().toString().startsWith("catalog-")).sorted().toList()) {
                Files.readAllLines(log, StandardCharsets.UTF_8).stream().filter(l -> l.contains(text)).forEach(lines::add);
            }
            return lines;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
