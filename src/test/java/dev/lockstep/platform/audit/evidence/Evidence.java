package dev.lockstep.platform.audit.evidence;

import dev.lockstep.platform.audit.AuditEntry;
import dev.lockstep.platform.audit.AuditEntryFormat;
import dev.lockstep.support.Api;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;

/** What the evidence tests share: downloading a bundle over real HTTP, running the verifier, writing format-2 entries. */
final class Evidence {

    private Evidence() {
    }

    record Download(int status, String contentType, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    static Download get(Api api, String user, String path) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(api.baseUrl() + path))
                .header("Accept", "application/zip, application/problem+json")
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
                        (user + ":" + Api.DEMO_PASSWORD).getBytes(StandardCharsets.UTF_8))).GET().build();
        try {
            HttpResponse<byte[]> response = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofByteArray());
            return new Download(response.statusCode(), response.headers().firstValue("Content-Type").orElse(""), response.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Downloads an export as auditor and saves it as a file. */
    static Path export(Api api, String query, Path directory) throws IOException {
        Download download = get(api, "audrey", "/api/audit/exports?" + query);
        if (download.status() != 200) {
            throw new AssertionError("export " + query + ": " + download.status() + " " + download.text());
        }
        Files.createDirectories(directory);
        Path bundle = Files.createTempFile(directory, "bundle-", ".zip");
        Files.write(bundle, download.body());
        return bundle;
    }

    record Verified(int exitCode, String output) {
    }

    /** The verifier's entry point, in process, with what it printed. */
    static Verified verify(Path bundle, String... options) {
        List<String> args = new ArrayList<>(List.of(bundle.toString()));
        args.addAll(List.of(options));
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        int exit = BundleVerifier.run(args, new PrintStream(printed, true, StandardCharsets.UTF_8));
        return new Verified(exit, printed.toString(StandardCharsets.UTF_8));
    }

    /**
     * Appends a format-2 entry about an application the way the trail's writer does (the chain's lock, the last
     * entry's hash, {@link AuditEntryFormat}), for exports by application before every decision writes one.
     */
    static AuditEntry appendDecision(JdbcTemplate business, long applicationId, String actor, String roles, String action,
            String detail) {
        return business.execute((ConnectionCallback<AuditEntry>) connection -> {
            connection.setAutoCommit(false);
            try (Statement statement = connection.createStatement()) {
                statement.execute("lock table recovery_audit in share row exclusive mode");
                long seq = 1;
                String prev = AuditEntryFormat.GENESIS;
                try (ResultSet last = statement.executeQuery("select seq, hash from recovery_audit order by seq desc limit 1")) {
                    if (last.next()) {
                        seq = last.getLong(1) + 1;
                        prev = last.getString(2);
                    }
                }
                AuditEntry unhashed = new AuditEntry(seq, 2, Instant.now().truncatedTo(ChronoUnit.MICROS), "system-utc", actor, roles,
                        action, applicationId, 1, "expense:3", "req-" + seq, "gtrid-" + seq, detail, prev, null);
                AuditEntry entry = new AuditEntry(seq, 2, unhashed.at(), "system-utc", actor, roles, action, applicationId, 1,
                        "expense:3", "req-" + seq, "gtrid-" + seq, detail, prev, unhashed.recomputedHash());
                try (PreparedStatement insert = connection.prepareStatement("insert into recovery_audit (seq, format, at,"
                        + " clock_source, actor, actor_roles, action, application_id, lifecycle_no, definition_version, request_id,"
                        + " gtrid, detail, prev_hash, hash) values (?, 2, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
                    insert.setLong(1, seq);
                    insert.setTimestamp(2, Timestamp.from(entry.at()));
                    insert.setString(3, entry.clockSource());
                    insert.setString(4, actor);
                    insert.setString(5, roles);
                    insert.setString(6, action);
                    insert.setLong(7, applicationId);
                    insert.setInt(8, 1);
                    insert.setString(9, entry.definitionVersion());
                    insert.setString(10, entry.requestId());
                    insert.setString(11, entry.gtrid());
                    insert.setString(12, detail);
                    insert.setString(13, prev);
                    insert.setString(14, entry.hash());
                    insert.executeUpdate();
                }
                connection.commit();
                return entry;
            } finally {
                connection.setAutoCommit(true);
            }
        });
    }
}
