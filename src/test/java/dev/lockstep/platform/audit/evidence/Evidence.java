package dev.lockstep.platform.audit.evidence;

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
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/** What the evidence tests share: downloading a bundle over real HTTP and running the verifier. */
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
}
