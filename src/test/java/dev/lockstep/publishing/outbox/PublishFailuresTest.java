package dev.lockstep.publishing.outbox;

import static dev.lockstep.publishing.outbox.PublishingTest.drain;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.lockstep.platform.EmbeddedPostgresServers;
import dev.lockstep.publishing.catalog.CatalogCredential;
import dev.lockstep.publishing.delivery.RemoteCallOutsideTransaction;
import dev.lockstep.support.Api;
import dev.lockstep.support.AuditEntries;
import dev.lockstep.support.UseCaseIntegrationTest;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/**
 * The failure rows of publishing: a permanent refusal, attempts used up, an operator's retry and
 * give-up (audited), a catalog that applied the event but whose answer timed out, and two publisher
 * nodes racing over the same 500 events.
 */
class PublishFailuresTest extends UseCaseIntegrationTest {

    @Autowired
    OutboxPublisher publisher;
    @Autowired
    OutboxStore store;
    @Autowired
    MeterRegistry meters;
    @Autowired
    EmbeddedPostgresServers servers;
    @Autowired
    RemoteCallOutsideTransaction outsideTransaction;
    @Autowired
    CatalogCredential catalogCredential;
    @Autowired
    OutboxMonitor monitor;

    PublishFixture fixture;

    @BeforeEach
    void fixture() {
        fixture = new PublishFixture(api, db, store, meters, servers, outsideTransaction, catalogCredential);
    }

    @Test
    void aPermanentRefusalFailsOnlyThatEventVisiblyAndAnAdminRetriesItAfterTheFixWithAnAuditedReason() {
        long poisoned = fixture.approvedApplication();
        long healthy = fixture.approvedApplication();
        String eventId = fixture.eventIdOf(poisoned);
        String payload = (String) fixture.event(eventId).get("payload_json");
        // a payload the catalog refuses for good (422: no asset id)
        db.business().update("update outbox_event set payload_json = '{\"title\":\"no asset\"}' where event_id = ?", eventId);

        drain(publisher);

        assertThat(fixture.event(eventId)).containsEntry("event_status", "FAILED").containsEntry("last_error_code", "HTTP_422")
                .containsEntry("retry_count", 1);
        assertThat(fixture.publishStatus(poisoned)).isEqualTo("FAILED");
        assertThat(fixture.assetRows(eventId)).isZero();
        assertThat(fixture.publishStatus(healthy)).as("the poison event blocks nobody").isEqualTo("PUBLISHED");

        // visible to admins and auditors, oldest first
        Api.Response failed = api.get("audrey", "/api/admin/outbox?status=FAILED&type=ASSET_PUBLISH_REQUESTED");
        assertThat(failed.status()).as(failed.toString()).isEqualTo(200);
        assertThat(failed.json().valueStream().map(e -> e.get("eventId").asString())).contains(eventId);
        JsonNode lag = api.get("erin", "/api/admin/outbox/lag").json();
        assertThat(lag.get("lastErrorCodes").get("HTTP_422").asLong()).isPositive();
        assertThat(lag.get("byStatus").get("FAILED").asLong()).isPositive();
        assertThat(api.get("alice", "/api/admin/outbox").status()).isEqualTo(403);
        assertThat(api.get("erin", "/api/admin/outbox?status=LOST").json().get("code").asString()).isEqualTo("OUTBOX_STATUS_UNKNOWN");

        // repairs are for admins, with a reason
        assertThat(api.post("audrey", "/api/admin/outbox/" + eventId + "/retry", "{\"reason\":\"x\"}").status()).isEqualTo(403);
        assertThat(api.post("erin", "/api/admin/outbox/" + eventId + "/retry", "{}").status()).isEqualTo(400);
        assertThat(fixture.event(eventId)).containsEntry("event_status", "FAILED");

        db.business().update("update outbox_event set payload_json = ? where event_id = ?", payload, eventId);
        Api.Response retried = api.post("erin", "/api/admin/outbox/" + eventId + "/retry", "{\"reason\":\"payload repaired, ticket 7\"}");

        assertThat(retried.status()).as(retried.toString()).isEqualTo(200);
        assertThat(fixture.event(eventId)).containsEntry("event_status", "RETRY").containsEntry("retry_count", 0);
        assertThat(fixture.publishStatus(poisoned)).isEqualTo("PENDING");
        assertThat(db.business().queryForObject("select count(*) from recovery_audit where actor = 'erin' and action = 'OUTBOX_RETRY'"
                + " and detail like ? and detail like '%payload repaired, ticket 7%'", Integer.class, "%" + eventId + "%")).isEqualTo(1);

        drain(publisher);

        assertThat(fixture.event(eventId)).containsEntry("event_status", "PUBLISHED");
        assertThat(fixture.publishStatus(poisoned)).isEqualTo("PUBLISHED");
        assertThat(fixture.assetRows(eventId)).isEqualTo(1);
        Api.Response again = api.post("erin", "/api/admin/outbox/" + eventId + "/retry", "{\"reason\":\"again\"}");
        assertThat(again.status()).isEqualTo(409);
        assertThat(again.json().get("code").asString()).isEqualTo("OUTBOX_EVENT_STATE");
    }

    @Test
    void anAdminGivesUpOnAnEventWithAnAuditedReasonAndNoNodeSendsItAfterwards() {
        long id = fixture.approvedApplication();
        String eventId = fixture.eventIdOf(id);

        Api.Response givenUp = api.post("erin", "/api/admin/outbox/" + eventId + "/give-up", "{\"reason\":\"asset withdrawn by owner\"}");

        assertThat(givenUp.status()).as(givenUp.toString()).isEqualTo(200);
        assertThat(fixture.event(eventId)).containsEntry("event_status", "FAILED").containsEntry("last_error_code", "GIVEN_UP");
        assertThat(fixture.publishStatus(id)).isEqualTo("FAILED");
        assertThat(db.business().queryForObject("select count(*) from recovery_audit where actor = 'erin' and action = 'OUTBOX_GIVE_UP'"
                + " and detail like ?", Integer.class, "%" + eventId + "%asset withdrawn by owner")).isEqualTo(1);
        assertThat(AuditEntries.of(db, id, "OUTBOX_GIVE_UP")).filteredOn(entry -> ((String) entry.get("detail")).contains(eventId))
                .singleElement()
                .satisfies(entry -> assertThat(entry).containsEntry("actor_roles", "ADMIN"));
        drain(publisher);
        assertThat(fixture.assetRows(eventId)).isZero();
        assertThat(api.post("erin", "/api/admin/outbox/nope/give-up", "{\"reason\":\"x\"}").status()).isEqualTo(404);
    }

    @Test
    void anEventFailsOnceItsAttemptsAreUsedUp() throws Exception {
        long id = fixture.approvedApplication();
        String eventId = fixture.eventIdOf(id);
        OutboxPublisher oneShot = fixture.node("one-shot.tm", "http://localhost:" + PublishFixture.closedPort() + "/catalog",
                Duration.ofSeconds(1), Duration.ofSeconds(1), 1);

        oneShot.publishDue();

        assertThat(fixture.event(eventId)).containsEntry("event_status", "FAILED").containsEntry("retry_count", 1)
                .containsEntry("last_error_code", "CATALOG_UNREACHABLE");
        assertThat(fixture.event(eventId).get("last_error_detail").toString()).contains("lockstep.publish.max-attempts=1");
        assertThat(fixture.publishStatus(id)).isEqualTo("FAILED");
        assertThat(AuditEntries.of(db, id, "OUTBOX_GAVE_UP")).as("the publisher's give-up, in the transaction that marks it")
                .filteredOn(entry -> ((String) entry.get("detail")).contains(eventId)).singleElement()
                .satisfies(entry -> assertThat(entry).containsEntry("actor", OutboxStore.PUBLISHER)
                        .hasEntrySatisfying("detail", detail -> assertThat((String) detail).contains("CATALOG_UNREACHABLE")));
    }

    /** The catalog applied the create but its answer came too late: the publisher asks, and sends no second create. */
    @Test
    void aTimedOutPublishThatTheCatalogAppliedIsMarkedPublishedAfterAQueryWithoutASecondCreate() throws Exception {
        long id = fixture.approvedApplication();
        String eventId = fixture.eventIdOf(id);
        AtomicInteger creates = new AtomicInteger();
        HttpServer slowProxy = slowProxy(creates, Duration.ofSeconds(3));
        try {
            double duplicatesBefore = fixture.inboxDeliveries("DUPLICATE");
            OutboxPublisher impatient = fixture.node("impatient.tm",
                    "http://localhost:" + slowProxy.getAddress().getPort() + "/catalog", Duration.ofMillis(500),
                    Duration.ofSeconds(1), 10);

            impatient.publishDue();

            assertThat(fixture.event(eventId)).containsEntry("event_status", "PUBLISHED").containsEntry("owner", "impatient.tm")
                    .containsEntry("retry_count", 0);
            assertThat(fixture.publishStatus(id)).isEqualTo("PUBLISHED");
            assertThat(creates.get()).as("creates the catalog received").isEqualTo(1);
            assertThat(fixture.assetRows(eventId)).isEqualTo(1);
            assertThat(fixture.inboxDeliveries("DUPLICATE")).isEqualTo(duplicatesBefore);
        } finally {
            slowProxy.stop(0);
        }
    }

    @Test
    void twoPublisherNodesRacingOverFiveHundredEventsPublishEachExactlyOnceInEffect() throws Exception {
        String prefix = "race-" + UUID.randomUUID().toString().substring(0, 8) + "-";
        db.business().update("""
                insert into outbox_event (event_id, aggregate_type, aggregate_id, event_type, payload_json, event_status,
                                          retry_count, next_retry_at, created_at, updated_at)
                select ? || g, 'TEST_ASSET', g::text, 'ASSET_PUBLISH_REQUESTED',
                       '{"eventId":"' || ? || g || '","applicationId":0,"assetId":' || (100000 + g) || ',"title":"race","lifecycleNo":1}',
                       'PENDING', 0, now(), now(), now()
                  from generate_series(1, 500) g
                """, prefix, prefix);
        double duplicatesBefore = fixture.inboxDeliveries("DUPLICATE");
        List<OutboxPublisher> nodes = List.of(
                fixture.node("race-a.tm", fixture.inProcessCatalogUrl(), Duration.ofSeconds(5), Duration.ofSeconds(1), 10),
                fixture.node("race-b.tm", fixture.inProcessCatalogUrl(), Duration.ofSeconds(5), Duration.ofSeconds(1), 10));

        ExecutorService threads = Executors.newFixedThreadPool(nodes.size());
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> running = new ArrayList<>();
            for (OutboxPublisher node : nodes) {
                running.add(threads.submit(() -> {
                    start.await();
                    drain(node);
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> node : running) {
                node.get();
            }
        } finally {
            threads.shutdownNow();
        }

        String like = prefix + "%";
        assertThat(db.business().queryForObject("select count(*) from outbox_event where event_id like ? and event_status = 'PUBLISHED'",
                Integer.class, like)).isEqualTo(500);
        List<Map<String, Object>> owners = db.business().queryForList(
                "select owner, count(*) as events from outbox_event where event_id like ? group by owner", like);
        assertThat(owners).extracting(row -> row.get("owner")).isSubsetOf("race-a.tm", "race-b.tm");
        assertThat(fixture.catalog().queryForObject("select count(*) from inbox_message where event_id like ?", Integer.class, like))
                .isEqualTo(500);
        assertThat(fixture.catalog().queryForObject("select count(*) from published_asset where event_id like ?", Integer.class, like))
                .isEqualTo(500);
        assertThat(fixture.catalog().queryForObject("select count(distinct asset_id) from published_asset where event_id like ?",
                Integer.class, like)).isEqualTo(500);
        assertThat(fixture.inboxDeliveries("DUPLICATE")).as("no event was sent twice").isEqualTo(duplicatesBefore);
    }

    /**
     * Issue 29, item 12: a slow catalog makes a lease run out in the middle of a batch. Before each send the holder
     * asks the database whether the event is still its own under an unexpired lease: the event another node took
     * over meanwhile and the one whose lease simply ran out are not sent by the stale holder, and it charges them
     * no attempt (the unsent one goes back to PENDING, not left to be taken over as LEASE_EXPIRED).
     */
    @Test
    void aStaleHolderSendsNothingOfTheBatchAfterItsLeaseRanOutAndChargesNoAttempt() throws Exception {
        String prefix = "lease-" + UUID.randomUUID().toString().substring(0, 8) + "-";
        List<String> events = List.of(prefix + "1", prefix + "2", prefix + "3");
        for (int i = 0; i < events.size(); i++) {
            // due long before anything else in the shared outbox, so that a batch of three takes exactly these
            db.business().update("""
                    insert into outbox_event (event_id, aggregate_type, aggregate_id, event_type, payload_json, event_status,
                                              retry_count, next_retry_at, created_at, updated_at)
                    values (?, 'TEST_ASSET', ?, 'ASSET_PUBLISH_REQUESTED', ?, 'PENDING', 0,
                            timestamp '2000-01-01 00:00:00' + ? * interval '1 second', now(), now())
                    """, events.get(i), Integer.toString(i), "{\"eventId\":\"" + events.get(i) + "\"}", i);
        }
        // the claim returns its rows in no set order: the first one sent is held, one of the other two is taken over
        List<String> creates = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicInteger takenOver = new AtomicInteger();
        List<Throwable> catalogErrors = java.util.Collections.synchronizedList(new ArrayList<>());
        // an overloaded catalog: holds the first create for 1.5 s, then answers 503 like every other create
        HttpServer slowCatalog = HttpServer.create(new InetSocketAddress("localhost", 0), 0);
        slowCatalog.createContext("/catalog", exchange -> {
            try (exchange) {
                exchange.getRequestBody().readAllBytes();
                if (exchange.getRequestMethod().equals("POST")) {
                    String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
                    creates.add(key);
                    if (creates.size() == 1) {
                        Thread.sleep(1200);
                        // the 1 s lease is over: another node's claim takes the second event over (what its claim
                        // statement does to an expired row)
                        Instant now = Instant.now();
                        Timestamp takerLease = Timestamp.from(now.plus(Duration.ofHours(1)));
                        takenOver.set(db.business().update("""
                                update outbox_event
                                   set retry_count = retry_count + 1, last_error_code = 'LEASE_EXPIRED', owner = 'taker.tm',
                                       lease_until = ?, next_retry_at = ?, updated_at = ?
                                 where event_id = ? and event_status = 'PROCESSING' and lease_until <= ?
                                """, takerLease, takerLease, Timestamp.from(now), others(events, key).get(0), Timestamp.from(now)));
                        Thread.sleep(300);
                    }
                    exchange.sendResponseHeaders(503, -1);
                } else {
                    exchange.sendResponseHeaders(404, -1);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException | java.io.IOException e) {
                catalogErrors.add(e);
            }
        });
        slowCatalog.setExecutor(Executors.newCachedThreadPool());
        slowCatalog.start();
        try {
            OutboxPublisher stale = fixture.nodeWithLease("stale.tm",
                    "http://localhost:" + slowCatalog.getAddress().getPort() + "/catalog", Duration.ofSeconds(5),
                    Duration.ofSeconds(1), events.size());

            assertThat(stale.publishDue()).isEqualTo(3);
            String sent = creates.get(0);
            String takenOverEvent = others(events, sent).get(0);
            String unsent = others(events, sent).get(1);

            assertThat(catalogErrors).as("errors in the slow catalog").isEmpty();
            assertThat(takenOver.get()).as("the second event was taken over during the first send: "
                    + db.business().queryForList("select event_id, event_status, owner, lease_until, retry_count from outbox_event"
                    + " where event_id like ?", prefix + "%")).isEqualTo(1);
            Map<String, Object> first = fixture.event(sent);
            assertThat(first).as("attempted, under a lease that ran out while it waited but nobody took")
                    .containsEntry("event_status", "RETRY").containsEntry("retry_count", 1).containsEntry("last_error_code", "HTTP_503");
            assertThat(db.business().queryForMap("select event_status, owner, retry_count, last_error_code from outbox_event"
                    + " where event_id = ?", takenOverEvent)).as("the new holder's, untouched by the stale one")
                    .containsEntry("event_status", "PROCESSING").containsEntry("owner", "taker.tm")
                    .containsEntry("retry_count", 1).containsEntry("last_error_code", "LEASE_EXPIRED");
            assertThat(db.business().queryForMap("select event_status, retry_count, last_error_code, lease_until from outbox_event"
                    + " where event_id = ?", unsent)).as("not sent, no attempt charged, claimable again")
                    .containsEntry("event_status", "PENDING").containsEntry("retry_count", 0)
                    .containsEntry("last_error_code", null).containsEntry("lease_until", null);
            assertThat(creates).as("creates the catalog received").containsExactly(sent);
        } finally {
            slowCatalog.stop(0);
            db.business().update("delete from outbox_event where event_id like ?", prefix + "%");
        }
    }

    private static List<String> others(List<String> events, String event) {
        return events.stream().filter(other -> !other.equals(event)).sorted().toList();
    }

    @Test
    void anEventDueForLongerThanStuckAfterDegradesHealthAndShowsInTheGauges() {
        String eventId = "stuck-" + UUID.randomUUID();
        db.business().update("insert into outbox_event (event_id, aggregate_type, aggregate_id, event_type, payload_json,"
                + " event_status, retry_count, next_retry_at, created_at, updated_at, last_error_code)"
                + " values (?, 'TEST_ASSET', '9', 'ASSET_PUBLISH_REQUESTED', '{}', 'RETRY', 3, now() - interval '1 hour',"
                + " now() - interval '2 hours', now(), 'HTTP_503')", eventId);
        try {
            monitor.read();

            Api.Response health = api.get("erin", "/actuator/health/outbox");
            assertThat(health.status()).as(health.toString()).isEqualTo(503);
            assertThat(health.json().get("status").asString()).isEqualTo("OUT_OF_SERVICE");
            String metrics = api.get("erin", "/actuator/prometheus", "text/plain").body();
            assertThat(metrics).contains("lockstep_outbox_events{status=\"RETRY\"}");
            double oldest = Double.parseDouble(metrics.lines().filter(line -> line.startsWith("lockstep_outbox_oldest_pending_age_seconds"))
                    .findFirst().orElseThrow().replaceAll(".* ", ""));
            assertThat(oldest).isGreaterThanOrEqualTo(7200 - 60);
            assertThat(api.get("erin", "/api/admin/outbox/lag").json().get("retryCountDistribution").get("3").asLong()).isPositive();
        } finally {
            db.business().update("delete from outbox_event where event_id = ?", eventId);
            monitor.read();
        }
        assertThat(api.get("erin", "/actuator/health/outbox").json().get("status").asString()).isEqualTo("UP");
    }

    /**
     * Forwards to the real in-process catalog, but holds the answer to a create for {@code delay}: the
     * catalog has applied it, the caller has given up waiting. A lookup is forwarded only once the
     * create has reached the catalog, however slowly the create travelled.
     */
    private HttpServer slowProxy(AtomicInteger creates, Duration delay) throws Exception {
        HttpClient forward = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        CountDownLatch applied = new CountDownLatch(1);
        HttpServer proxy = HttpServer.create(new InetSocketAddress("localhost", 0), 0);
        proxy.createContext("/catalog", exchange -> {
            try (exchange) {
                byte[] body = exchange.getRequestBody().readAllBytes();
                HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(fixture.inProcessCatalogUrl()
                        + exchange.getRequestURI().getPath().substring("/catalog".length())))
                        .header("Authorization", exchange.getRequestHeaders().getFirst("Authorization"));
                boolean create = exchange.getRequestMethod().equals("POST");
                if (create) {
                    request.header("Idempotency-Key", exchange.getRequestHeaders().getFirst("Idempotency-Key"))
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofByteArray(body));
                } else {
                    applied.await(30, TimeUnit.SECONDS);
                    request.GET();
                }
                HttpResponse<byte[]> answer = forward.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
                if (create) {
                    creates.incrementAndGet();
                    applied.countDown();
                    Thread.sleep(delay.toMillis());
                }
                exchange.sendResponseHeaders(answer.statusCode(), answer.body().length == 0 ? -1 : answer.body().length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(answer.body());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (java.io.IOException e) {
                // the caller timed out and closed the connection: expected
            }
        });
        proxy.setExecutor(Executors.newCachedThreadPool());
        proxy.start();
        return proxy;
    }
}
