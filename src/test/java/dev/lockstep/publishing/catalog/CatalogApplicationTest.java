package dev.lockstep.publishing.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.lockstep.platform.StartupCheckFailure;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The reference catalog on its own ({@link CatalogApplication}), without any part of the approval
 * service, on a PostgreSQL database of its own: idempotent create, a reused key refused, the queries, the token
 * (required: no start without one).
 */
class CatalogApplicationTest {

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void theCatalogRunsAsItsOwnProcessAndDedupesByIdempotencyKey() throws Exception {
        Path data = Files.createTempDirectory("catalog-pg");
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().setDataDirectory(data).setPort(0).start()) {
            String url = postgres.getJdbcUrl("postgres", "postgres");
            try (ConfigurableApplicationContext catalog = new SpringApplication(CatalogApplication.class).run(
                    "--lockstep.catalog.standalone=true", "--server.port=0", "--lockstep.catalog.db.url=" + url,
                    "--lockstep.catalog.db.username=postgres", "--lockstep.catalog.db.password=",
                    "--lockstep.catalog.token=s3cret")) {
                String base = "http://localhost:" + catalog.getEnvironment().getProperty("local.server.port") + "/catalog";
                String body = "{\"applicationId\":5,\"assetId\":77,\"title\":\"Standalone\",\"lifecycleNo\":1}";

                assertThat(publish(base, "evt-1", body, null).statusCode()).isEqualTo(401);
                assertThat(publish(base, "evt-1", body, "s3cret").statusCode()).isEqualTo(201);
                HttpResponse<String> repeated = publish(base, "evt-1", body, "s3cret");
                assertThat(repeated.statusCode()).isEqualTo(200);
                assertThat(repeated.headers().firstValue("Idempotent-Replayed")).contains("true");
                HttpResponse<String> forged = publish(base, "evt-1", body.replace("Standalone", "Forged"), "s3cret");
                assertThat(forged.statusCode()).as("the same key with another body is no replay").isEqualTo(422);
                assertThat(forged.body()).contains("IDEMPOTENCY_KEY_REUSED");
                assertThat(forged.headers().firstValue("Idempotent-Replayed")).isEmpty();
                assertThat(publish(base, "evt-2", "{\"title\":\"no asset\"}", "s3cret").statusCode()).isEqualTo(422);
                assertThat(get(base + "/publications/evt-1").body()).contains("\"assetId\":77");
                assertThat(get(base + "/assets/77").body()).contains("evt-1");
                assertThat(get(base + "/publications/evt-9").statusCode()).isEqualTo(404);

                JdbcTemplate db = new JdbcTemplate(postgres.getPostgresDatabase());
                assertThat(db.queryForObject("select count(*) from inbox_message", Integer.class)).isEqualTo(1);
                assertThat(db.queryForObject("select count(*) from published_asset where asset_id = 77", Integer.class)).isEqualTo(1);
            }
        }
    }

    /** A catalog of its own is reachable from elsewhere by definition: it does not start without a token. */
    @Test
    void withoutATokenTheCatalogRefusesToStartNamingTheSetting() throws Exception {
        Path data = Files.createTempDirectory("catalog-pg");
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().setDataDirectory(data).setPort(0).start()) {
            Throwable thrown = catchThrowable(() -> new SpringApplication(CatalogApplication.class).run(
                    "--lockstep.catalog.standalone=true", "--server.port=0",
                    "--lockstep.catalog.db.url=" + postgres.getJdbcUrl("postgres", "postgres"),
                    "--lockstep.catalog.db.username=postgres", "--lockstep.catalog.db.password=").close());

            assertThat(thrown).as("the catalog must refuse to start").isNotNull();
            Throwable cause = thrown;
            while (cause != null && !(cause instanceof StartupCheckFailure)) {
                cause = cause.getCause();
            }
            assertThat(cause).isInstanceOf(StartupCheckFailure.class);
            assertThat(((StartupCheckFailure) cause).setting()).isEqualTo("lockstep.catalog.token");
            assertThat(cause).hasMessageContaining("is not set").hasMessageContaining("Fix: set lockstep.catalog.token");
        }
    }

    private HttpResponse<String> publish(String base, String key, String body, String token) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + "/publications"))
                .header("Idempotency-Key", key).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer s3cret").GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
