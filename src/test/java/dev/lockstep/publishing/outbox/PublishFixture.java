package dev.lockstep.publishing.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.approval.ApiFlows;
import dev.lockstep.platform.EmbeddedPostgresServers;
import dev.lockstep.publishing.catalog.CatalogCredential;
import dev.lockstep.publishing.delivery.CatalogClient;
import dev.lockstep.publishing.delivery.RemoteCallOutsideTransaction;
import dev.lockstep.support.Api;
import dev.lockstep.support.TestDatabases;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * What the publishing tests share: an application approved over HTTP, plain SQL on the catalog's
 * own database, and extra publisher nodes built from the service's real parts (its outbox pool, real
 * HTTP) with their own owner name, catalog URL and timeouts.
 */
class PublishFixture {

    private final Api api;
    private final TestDatabases db;
    private final OutboxStore store;
    private final MeterRegistry meters;
    private final JdbcTemplate catalog;
    private final RemoteCallOutsideTransaction outsideTransaction;
    private final CatalogCredential catalogCredential;

    PublishFixture(Api api, TestDatabases db, OutboxStore store, MeterRegistry meters, EmbeddedPostgresServers servers,
            RemoteCallOutsideTransaction outsideTransaction, CatalogCredential catalogCredential) {
        this.api = api;
        this.catalogCredential = catalogCredential;
        this.db = db;
        this.store = store;
        this.meters = meters;
        this.outsideTransaction = outsideTransaction;
        this.catalog = new JdbcTemplate(servers.separateDatabase("lockstep_catalog").plainDataSource());
    }

    /** Plain SQL on the catalog's database (never read through the catalog's code). */
    JdbcTemplate catalog() {
        return catalog;
    }

    /** Creates, submits and approves a low-risk application (manager, then director); returns its id. */
    long approvedApplication() {
        long id = ApiFlows.createDraft(api, "LOW", false);
        String processInstanceId = ApiFlows.submit(api, id);
        approve("bob", ApiFlows.openTaskId(db, processInstanceId, "managerApproval"));
        approve("frank", ApiFlows.openTaskId(db, processInstanceId, "finalApproval"));
        return id;
    }

    void approve(String user, String taskId) {
        Api.Response response = ApiFlows.complete(api, user, taskId, "APPROVE");
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
    }

    String eventIdOf(long applicationId) {
        return db.business().queryForObject("select event_id from outbox_event where aggregate_type = 'APPLICATION'"
                + " and aggregate_id = ?", String.class, Long.toString(applicationId));
    }

    Map<String, Object> event(String eventId) {
        return db.business().queryForMap("select * from outbox_event where event_id = ?", eventId);
    }

    String publishStatus(long applicationId) {
        return db.business().queryForObject("select publish_status from application where id = ?", String.class, applicationId);
    }

    int assetRows(String eventId) {
        return catalog.queryForObject("select count(*) from published_asset where event_id = ?", Integer.class, eventId);
    }

    int inboxRows(String eventId) {
        return catalog.queryForObject("select count(*) from inbox_message where event_id = ?", Integer.class, eventId);
    }

    double inboxDeliveries(String result) {
        return meters.get("lockstep.catalog.inbox.messages").tag("result", result).counter().count();
    }

    /** A call to the in-process catalog as its publisher makes it: with the catalog's bearer token. */
    Api.Response catalogCall(String method, String path, String jsonBody, String idempotencyKey) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Authorization", "Bearer " + catalogCredential.token());
        if (idempotencyKey != null) {
            headers.put(CatalogClient.IDEMPOTENCY_KEY, idempotencyKey);
        }
        return api.send(method, path, jsonBody, headers);
    }

    String catalogToken() {
        return catalogCredential.token();
    }

    String inProcessCatalogUrl() {
        return api.baseUrl() + "/catalog";
    }

    /** A port nothing listens on: a catalog that is down. */
    static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** Another publisher node on the same outbox. */
    OutboxPublisher node(String owner, String catalogUrl, Duration readTimeout, Duration backoffInitial, int maxAttempts) {
        PublishProperties settings = new PublishProperties(true, URI.create(catalogUrl), null, Duration.ofMillis(500),
                readTimeout, maxAttempts, 50, Duration.ofSeconds(30), Duration.ZERO, backoffInitial,
                backoffInitial.multipliedBy(8), Duration.ofMinutes(5));
        settings.verify();
        CatalogClient client = new CatalogClient(() -> URI.create(catalogUrl), catalogCredential.token(), settings.connectTimeout(),
                settings.readTimeout(), outsideTransaction);
        return new OutboxPublisher(store, client, settings, owner, Clock.systemUTC(), meters);
    }

    /**
     * A publisher node with a lease and a batch size of the test's choosing, not checked against the timeouts
     * ({@link PublishProperties#verify()} wants the lease to outlast two whole attempts): so that a lease can run out
     * while one slow attempt is still waiting for the catalog, the same thing a batch of many slow attempts does
     * under the default lease.
     */
    OutboxPublisher nodeWithLease(String owner, String catalogUrl, Duration readTimeout, Duration lease, int batchSize) {
        PublishProperties settings = new PublishProperties(true, URI.create(catalogUrl), null, Duration.ofMillis(500),
                readTimeout, 10, batchSize, lease, Duration.ZERO, Duration.ofSeconds(1), Duration.ofSeconds(8),
                Duration.ofMinutes(5));
        CatalogClient client = new CatalogClient(() -> URI.create(catalogUrl), catalogCredential.token(), settings.connectTimeout(),
                settings.readTimeout(), outsideTransaction);
        return new OutboxPublisher(store, client, settings, owner, Clock.systemUTC(), meters);
    }
}
