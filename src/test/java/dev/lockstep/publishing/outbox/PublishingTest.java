package dev.lockstep.publishing.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.approval.ApiFlows;
import dev.lockstep.platform.EmbeddedPostgresServers;
import dev.lockstep.publishing.catalog.CatalogCredential;
import dev.lockstep.publishing.delivery.RemoteCallOutsideTransaction;
import dev.lockstep.support.Api;
import dev.lockstep.support.UseCaseIntegrationTest;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;

/**
 * Publishing end to end on the embedded default: the event written with the final approval, the
 * publisher (driven by {@code publishDue()}), the reference catalog over real HTTP in its own
 * database. Every outcome is read back with plain SQL from the business and the catalog databases.
 */
class PublishingTest extends UseCaseIntegrationTest {

    private static final String FORGED = "{\"applicationId\":1,\"assetId\":666,\"title\":\"Nobody approved this\",\"lifecycleNo\":1}";

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
    Outbox outbox;
    @Autowired
    PlatformTransactionManager transactionManager;

    PublishFixture fixture;

    @BeforeEach
    void fixture() {
        fixture = new PublishFixture(api, db, store, meters, servers, outsideTransaction, catalogCredential);
    }

    @Test
    void theFinalApprovalWritesOnePendingPublishEventWithASafePayload() {
        long id = fixture.approvedApplication();

        Map<String, Object> event = fixture.event(fixture.eventIdOf(id));
        assertThat(event).containsEntry("event_type", "ASSET_PUBLISH_REQUESTED").containsEntry("aggregate_type", "APPLICATION")
                .containsEntry("event_status", "PENDING").containsEntry("retry_count", 0);
        assertThat(event.get("owner")).isNull();
        assertThat(event.get("payload_json").toString()).contains("\"assetId\":42").contains("\"applicationId\":" + id)
                .contains("\"eventId\":\"" + event.get("event_id") + "\"")
                .doesNotContain("amount").doesNotContain("description").doesNotContain("applicant");
        assertThat(fixture.publishStatus(id)).isEqualTo("PENDING");
        assertThat(db.business().queryForObject("select approval_status from application where id = ?", String.class, id))
                .isEqualTo("APPROVED");
    }

    @Test
    void aFaultAfterTheEventIsWrittenRollsBackTheEventTheApprovalAndTheProcessTogether() {
        long id = ApiFlows.createDraft(api, "LOW", false);
        String processInstanceId = ApiFlows.submit(api, id);
        fixture.approve("bob", ApiFlows.openTaskId(db, processInstanceId, "managerApproval"));
        String finalTask = ApiFlows.openTaskId(db, processInstanceId, "finalApproval");
        Map<String, Object> before = db.business().queryForMap("select * from application where id = ?", id);
        faults.failAfter("outbox", "requestAssetPublication");

        Api.Response response = ApiFlows.complete(api, "frank", finalTask, "APPROVE");

        assertThat(response.status()).as(response.toString()).isEqualTo(500);
        assertThat(db.business().queryForObject("select count(*) from outbox_event where aggregate_type = 'APPLICATION' and aggregate_id = ?", Integer.class,
                Long.toString(id))).isZero();
        assertThat(db.business().queryForMap("select * from application where id = ?", id)).isEqualTo(before);
        assertThat(db.workflow().queryForObject("select count(*) from act_ru_task where id_ = ?", Integer.class, finalTask))
                .as("the final task is still open").isEqualTo(1);
        assertThat(db.preparedTransactions()).isEmpty();

        // and the same decision, without the fault, commits the approval and its event together
        fixture.approve("frank", finalTask);
        assertThat(fixture.event(fixture.eventIdOf(id))).containsEntry("event_status", "PENDING");
    }

    @Test
    void anApprovedAssetIsPublishedOnceInTheCatalogAndTheApplicationShowsPublished() {
        long id = fixture.approvedApplication();
        String eventId = fixture.eventIdOf(id);

        drain(publisher);

        assertThat(fixture.publishStatus(id)).isEqualTo("PUBLISHED");
        Map<String, Object> event = fixture.event(eventId);
        assertThat(event).containsEntry("event_status", "PUBLISHED").containsEntry("owner", "lockstep-it.tm")
                .containsEntry("retry_count", 0);
        assertThat(event.get("published_at")).isNotNull();
        assertThat(fixture.catalog().queryForMap("select asset_id, application_id, title from published_asset where event_id = ?",
                eventId)).containsEntry("asset_id", 42L).containsEntry("application_id", id).containsEntry("title", "Publish asset");
        assertThat(fixture.catalog().queryForMap("select consumer_name, result_code from inbox_message where event_id = ?",
                eventId)).containsEntry("consumer_name", "asset-catalog").containsEntry("result_code", "PUBLISHED");
        // the catalog's query API answers by event id and by asset id
        assertThat(fixture.catalogCall("GET", "/catalog/publications/" + eventId, null, null).json().get("applicationId").asLong())
                .isEqualTo(id);
        assertThat(fixture.catalogCall("GET", "/catalog/assets/42", null, null).json().get("publications").valueStream()
                .map(p -> p.get("eventId").asString())).contains(eventId);
        assertThat(fixture.catalogCall("GET", "/catalog/publications/no-such-event", null, null).status()).isEqualTo(404);
        JsonNode details = api.get("alice", "/api/applications/" + id).json();
        assertThat(details.toString()).contains("PUBLISHED");
    }

    /** A deadline notification is routed by its type: delivered (to the notification log), never sent to the catalog. */
    @Test
    void aDeadlineNotificationIsNeverSentToTheCatalog() {
        String eventId = new TransactionTemplate(transactionManager).execute(status -> outbox.notifyDeadline(
                new Outbox.DeadlineNotification("APPLICATION", 9_999_001L, 1, "ESCALATED", "managerApproval", List.of("task-1"),
                        List.of("senior-managers"), List.of()), Instant.now()));

        drain(publisher);

        assertThat(fixture.event(eventId)).containsEntry("event_type", Outbox.DEADLINE_NOTIFICATION)
                .containsEntry("event_status", "PUBLISHED");
        assertThat(fixture.catalog().queryForObject("select count(*) from inbox_message where event_id = ?", Integer.class, eventId))
                .isZero();
    }

    /** The publisher died after the catalog applied the event and before it marked PUBLISHED: sent again, deduped. */
    @Test
    void anEventSentAgainAfterThePublisherDiedIsDedupedByTheCatalogInbox() {
        long id = fixture.approvedApplication();
        String eventId = fixture.eventIdOf(id);
        drain(publisher);
        double duplicatesBefore = fixture.inboxDeliveries("DUPLICATE");
        // what the rows look like when the node died between the catalog's answer and its mark: still
        // PROCESSING under its lease, which has now run out
        db.business().update("update outbox_event set event_status = 'PROCESSING', owner = 'crashed-node.tm',"
                + " lease_until = now() - interval '1 second', next_retry_at = now() - interval '1 second',"
                + " published_at = null where event_id = ?", eventId);
        db.business().update("update application set publish_status = 'PUBLISHING' where id = ?", id);

        drain(publisher);

        assertThat(fixture.event(eventId)).containsEntry("event_status", "PUBLISHED").containsEntry("owner", "lockstep-it.tm")
                .containsEntry("last_error_code", "LEASE_EXPIRED");
        assertThat(fixture.publishStatus(id)).isEqualTo("PUBLISHED");
        assertThat(fixture.assetRows(eventId)).as("one asset row despite two deliveries").isEqualTo(1);
        assertThat(fixture.inboxRows(eventId)).isEqualTo(1);
        assertThat(fixture.inboxDeliveries("DUPLICATE") - duplicatesBefore).isEqualTo(1.0);
    }

    @Test
    void whileTheCatalogIsDownTheEventWaitsWithBackoffAndIsPublishedOnceItIsBack() throws Exception {
        long id = fixture.approvedApplication();
        String eventId = fixture.eventIdOf(id);
        OutboxPublisher cutOff = fixture.node("cut-off.tm", "http://localhost:" + PublishFixture.closedPort() + "/catalog",
                Duration.ofSeconds(1), Duration.ofSeconds(2), 5);

        Instant attempted = Instant.now();
        cutOff.publishDue();

        Map<String, Object> event = fixture.event(eventId);
        assertThat(event).containsEntry("event_status", "RETRY").containsEntry("retry_count", 1)
                .containsEntry("last_error_code", "CATALOG_UNREACHABLE");
        // backoff with jitter: somewhere in the upper half of the initial 2 s
        assertThat(((Timestamp) event.get("next_retry_at")).toInstant()).isAfter(attempted.plusMillis(900));
        assertThat(fixture.publishStatus(id)).isEqualTo("PUBLISHING");
        assertThat(fixture.assetRows(eventId)).isZero();
        cutOff.publishDue();
        assertThat(fixture.event(eventId)).as("not due again before its backoff").containsEntry("retry_count", 1);

        // the catalog is reachable again: the next due poll publishes it
        await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            publisher.publishDue();
            assertThat(fixture.event(eventId)).containsEntry("event_status", "PUBLISHED");
        });
        assertThat(fixture.publishStatus(id)).isEqualTo("PUBLISHED");
        assertThat(fixture.assetRows(eventId)).isEqualTo(1);
    }

    @Test
    void aLeaseLeftByADeadNodeIsTakenOverOnlyOnceItHasExpired() {
        String expired = seedProcessing("dead-node.tm", "now() - interval '5 seconds'");
        String live = seedProcessing("busy-node.tm", "now() + interval '10 minutes'");

        drain(publisher);

        assertThat(fixture.event(expired)).containsEntry("event_status", "PUBLISHED").containsEntry("owner", "lockstep-it.tm")
                .containsEntry("retry_count", 1);
        assertThat(fixture.assetRows(expired)).isEqualTo(1);
        assertThat(fixture.event(live)).as("a lease still running stays with its node")
                .containsEntry("event_status", "PROCESSING").containsEntry("owner", "busy-node.tm");
        assertThat(fixture.assetRows(live)).isZero();
        db.business().update("delete from outbox_event where event_id = ?", live);
    }

    private String seedProcessing(String owner, String leaseUntil) {
        String eventId = "lease-" + ApiFlows.key();
        db.business().update("insert into outbox_event (event_id, aggregate_type, aggregate_id, event_type, payload_json,"
                + " event_status, owner, lease_until, retry_count, next_retry_at, created_at, updated_at)"
                + " values (?, 'TEST_ASSET', '7', 'ASSET_PUBLISH_REQUESTED', ?, 'PROCESSING', ?, " + leaseUntil + ", 0, "
                + leaseUntil + ", now(), now())", eventId, payload(eventId, 7), owner);
        return eventId;
    }

    /**
     * Issue 29, the catalog tried as an attacker would on the default configuration: nobody without its credential
     * publishes or reads (an auditor read a pending event's id from the admin API and tries to pre-empt it).
     */
    @Test
    void withoutTheCatalogsTokenNobodyPublishesOrReads() {
        long id = fixture.approvedApplication();
        String eventId = fixture.eventIdOf(id);

        for (Map<String, String> caller : List.of(Map.<String, String>of(), Map.of("Authorization", "Bearer guessed"),
                Map.of("Authorization", "Basic " + Base64.getEncoder().encodeToString("erin:lockstep".getBytes(StandardCharsets.UTF_8))))) {
            Map<String, String> headers = new HashMap<>(caller);
            headers.put("Idempotency-Key", eventId);
            Api.Response publish = api.send("POST", "/catalog/publications", FORGED, headers);
            assertThat(publish.status()).as("%s: %s", caller, publish).isEqualTo(401);
            assertThat(publish.contentType()).startsWith("application/problem+json");
            assertThat(publish.json().get("code").asString()).isEqualTo("CATALOG_UNAUTHORIZED");
            assertThat(api.send("GET", "/catalog/publications/" + eventId, null, caller).status()).isEqualTo(401);
        }

        assertThat(fixture.inboxRows(eventId)).isZero();
        assertThat(fixture.catalog().queryForObject("select count(*) from published_asset where event_id = ? and asset_id = 666",
                Integer.class, eventId)).isZero();
        drain(publisher);
        assertThat(fixture.assetRows(eventId)).isEqualTo(1);
        assertThat(fixture.publishStatus(id)).isEqualTo("PUBLISHED");
    }

    /** A forged payload under a published event id is refused, never answered as a replay, and changes nothing. */
    @Test
    void aForgedPayloadUnderAPublishedEventIdIsRefusedNotReplayed() {
        long id = fixture.approvedApplication();
        String eventId = fixture.eventIdOf(id);
        drain(publisher);
        Map<String, Object> stored = fixture.catalog().queryForMap("select * from published_asset where event_id = ?", eventId);

        Api.Response forged = fixture.catalogCall("POST", "/catalog/publications", FORGED, eventId);

        assertThat(forged.status()).as(forged.toString()).isEqualTo(422);
        assertThat(forged.contentType()).startsWith("application/problem+json");
        assertThat(forged.json().get("code").asString()).isEqualTo("IDEMPOTENCY_KEY_REUSED");
        assertThat(forged.header("Idempotent-Replayed")).isNull();
        assertThat(fixture.catalog().queryForMap("select * from published_asset where event_id = ?", eventId)).isEqualTo(stored);
        assertThat(fixture.inboxRows(eventId)).isEqualTo(1);
    }

    /**
     * The forger got in first (it held the credential: an insider, or a catalog from before the token was required).
     * The real delivery is refused, not answered as a replay: the event FAILS with the mismatch named, the application
     * is not PUBLISHED, and the forgery stays the only publication for operators to find.
     */
    @Test
    void theRealDeliveryAfterAForgeryIsNeverMarkedPublished() {
        long id = fixture.approvedApplication();
        String eventId = fixture.eventIdOf(id);
        Api.Response forged = fixture.catalogCall("POST", "/catalog/publications", FORGED, eventId);
        assertThat(forged.status()).as(forged.toString()).isEqualTo(201);

        drain(publisher);

        assertThat(fixture.event(eventId)).containsEntry("event_status", "FAILED")
                .containsEntry("last_error_code", "CATALOG_PAYLOAD_MISMATCH");
        assertThat(fixture.publishStatus(id)).isEqualTo("FAILED");
        assertThat(fixture.catalog().queryForMap("select asset_id, title from published_asset where event_id = ?", eventId))
                .containsEntry("asset_id", 666L).containsEntry("title", "Nobody approved this");
        assertThat(fixture.assetRows(eventId)).isEqualTo(1);
    }

    static String payload(String eventId, long assetId) {
        return "{\"eventId\":\"" + eventId + "\",\"applicationId\":0,\"assetId\":" + assetId
                + ",\"title\":\"seeded\",\"lifecycleNo\":1}";
    }

    static void drain(OutboxPublisher publisher) {
        int rounds = 0;
        while (publisher.publishDue() > 0 && rounds++ < 100) {
            // every claimed event got its attempt; poll again until nothing is due
        }
    }
}
