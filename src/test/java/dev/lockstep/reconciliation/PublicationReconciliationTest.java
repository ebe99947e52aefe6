package dev.lockstep.reconciliation;

import static dev.lockstep.reconciliation.ReconciliationRuns.ageApplication;
import static dev.lockstep.reconciliation.ReconciliationRuns.openIncident;
import static dev.lockstep.reconciliation.ReconciliationRuns.runAndWait;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.approval.ApiFlows;
import dev.lockstep.platform.EmbeddedPostgresServers;
import dev.lockstep.publishing.delivery.CatalogClient;
import dev.lockstep.publishing.delivery.PayloadDigest;
import dev.lockstep.publishing.delivery.RemoteCallOutsideTransaction;
import dev.lockstep.publishing.outbox.Outbox;
import dev.lockstep.publishing.outbox.OutboxPublisher;
import dev.lockstep.publishing.outbox.OutboxRetention;
import dev.lockstep.support.Api;
import dev.lockstep.support.UseCaseIntegrationTest;
import java.net.ServerSocket;
import java.net.URI;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The publishing rules over the real outbox, the real publisher and the reference catalog over real HTTP in its own
 * database: a catalog that lost an event (restored from a backup), a publisher that stopped mid-lease or left a retry
 * behind, a permanent failure, a publish status no event explains. Everything is asserted with plain SQL on the
 * business and the catalog databases.
 */
class PublicationReconciliationTest extends UseCaseIntegrationTest {

    @Autowired
    OutboxPublisher publisher;
    @Autowired
    EmbeddedPostgresServers servers;
    @Autowired
    EvidenceReader reader;
    @Autowired
    CatalogEvidence catalogEvidence;
    @Autowired
    RemoteCallOutsideTransaction outsideTransaction;
    @Autowired
    OutboxRetention outboxRetention;

    JdbcTemplate catalog;

    @BeforeEach
    void catalogDatabase() {
        catalog = new JdbcTemplate(servers.separateDatabase("lockstep_catalog").plainDataSource());
    }

    @Test
    void anEventTheCatalogLostIsRequeuedAndPublishedAgain() {
        long id = approvedApplication();
        String eventId = eventIdOf(id);
        publishAllDue();
        assertThat(publishStatus(id)).isEqualTo("PUBLISHED");
        // the catalog restored from a backup older than the publication: its record and its inbox entry are gone
        catalog.update("delete from published_asset where event_id = ?", eventId);
        catalog.update("delete from inbox_message where event_id = ?", eventId);
        ageApplication(db, id);

        runAndWait(api, "FULL");

        assertThat(db.business().queryForMap("select event_status, retry_count, published_at, last_error_code from outbox_event"
                + " where event_id = ?", eventId)).containsEntry("event_status", "PENDING").containsEntry("retry_count", 0)
                .containsEntry("published_at", null).containsEntry("last_error_code", "NOT_IN_CATALOG");
        assertThat(publishStatus(id)).isEqualTo("PENDING");
        assertThat(db.business().queryForObject("select count(*) from reconciliation_repair where application_id = ? and rule_id = ?"
                + " and outcome = 'APPLIED'", Integer.class, id, "PUBLISHED_NOT_IN_CATALOG")).isEqualTo(1);
        assertThat(db.business().queryForObject("select count(*) from recovery_audit where action = 'RECONCILIATION_REPAIR'"
                + " and detail like ?", Integer.class, "application " + id + " rule PUBLISHED_NOT_IN_CATALOG%")).isEqualTo(1);
        assertThat(db.business().queryForObject("select count(*) from reconciliation_incident where application_id = ?",
                Integer.class, id)).isZero();

        publishAllDue();

        assertThat(catalog.queryForObject("select count(*) from published_asset where event_id = ?", Integer.class, eventId))
                .as("the re-queued event reached the catalog again").isEqualTo(1);
        assertThat(publishStatus(id)).isEqualTo("PUBLISHED");
    }

    /**
     * The catalog holds the event, but not the payload the outbox sent (a forgery answered as a replay before issue 29,
     * or a row changed behind the publisher's back): the hashes differ, and that is an incident, never a repair.
     */
    @Test
    void aCatalogHoldingAnotherPayloadUnderTheEventIdIsAnIncident() {
        long id = approvedApplication();
        String eventId = eventIdOf(id);
        publishAllDue();
        String forged = "{\"applicationId\":1,\"assetId\":666,\"title\":\"Nobody approved this\"}";
        catalog.update("update published_asset set asset_id = 666, title = 'Nobody approved this', payload_sha256 = ?"
                + " where event_id = ?", PayloadDigest.sha256(forged), eventId);
        ageApplication(db, id);

        runAndWait(api, "FULL");

        long incident = openIncident(db, id, "PUBLISHED_PAYLOAD_MISMATCH");
        assertThat(db.business().queryForObject("select difference from reconciliation_incident where id = ?", String.class,
                incident)).contains(eventId).contains("payload hash");
        assertThat(db.business().queryForObject("select event_status from outbox_event where event_id = ?", String.class, eventId))
                .isEqualTo("PUBLISHED");
        assertThat(publishStatus(id)).isEqualTo("PUBLISHED");
        assertThat(db.business().queryForObject("select count(*) from reconciliation_repair where application_id = ?",
                Integer.class, id)).isZero();
    }

    @Test
    void aCatalogThatDoesNotAnswerProvesNoAbsence() throws Exception {
        long id = approvedApplication();
        String eventId = eventIdOf(id);
        publishAllDue();
        catalog.update("delete from published_asset where event_id = ?", eventId);
        catalog.update("delete from inbox_message where event_id = ?", eventId);
        Evidence read = reader.read(db.business(), id).orElseThrow();
        CatalogClient down;
        try (ServerSocket socket = new ServerSocket(0)) {
            down = new CatalogClient(() -> URI.create("http://localhost:" + socket.getLocalPort() + "/catalog"), null,
                    Duration.ofMillis(300), Duration.ofMillis(300), outsideTransaction);
        }

        Evidence unknown = new CatalogEvidence(down).attach(read);
        Evidence absent = catalogEvidence.attach(read);

        assertThat(unknown.publication().catalog()).containsEntry(eventId, CatalogClient.Lookup.UNKNOWN);
        assertThat(PublicationRule.PUBLISHED_NOT_IN_CATALOG.check(unknown)).isEmpty();
        assertThat(absent.publication().catalog()).containsEntry(eventId, CatalogClient.Lookup.NOT_APPLIED);
        assertThat(PublicationRule.PUBLISHED_NOT_IN_CATALOG.check(absent)).hasValueSatisfying(
                finding -> assertThat(finding.classification()).isEqualTo(Classification.REPAIRABLE));
    }

    @Test
    void anExpiredLeaseAndAnOverdueRetryAreRequeuedAndThenPublished() {
        long leased = approvedApplication();
        String leasedEvent = eventIdOf(leased);
        long retrying = approvedApplication();
        String retryEvent = eventIdOf(retrying);
        // a publisher node died holding its lease an hour ago; another left a retry due an hour ago untaken
        db.business().update("""
                update outbox_event set event_status = 'PROCESSING', owner = 'node-that-died', retry_count = 1,
                       lease_until = now() - interval '1 hour', next_retry_at = now() - interval '1 hour' where event_id = ?
                """, leasedEvent);
        db.business().update("""
                update outbox_event set event_status = 'RETRY', retry_count = 2, last_error_code = 'CATALOG_UNAVAILABLE',
                       next_retry_at = now() - interval '1 hour' where event_id = ?
                """, retryEvent);
        db.business().update("update application set publish_status = 'PUBLISHING' where id in (?, ?)", leased, retrying);
        ageApplication(db, leased);
        ageApplication(db, retrying);
        Instant beforeRun = Instant.now().minusSeconds(5);

        runAndWait(api, "FULL");

        Map<String, Object> requeued = db.business().queryForMap("select * from outbox_event where event_id = ?", leasedEvent);
        assertThat(requeued).containsEntry("event_status", "RETRY").containsEntry("owner", null).containsEntry("lease_until", null)
                .containsEntry("retry_count", 1);
        assertThat(((Timestamp) requeued.get("next_retry_at")).toInstant()).isAfter(beforeRun);
        Map<String, Object> retry = db.business().queryForMap("select * from outbox_event where event_id = ?", retryEvent);
        assertThat(retry).containsEntry("event_status", "RETRY").containsEntry("retry_count", 2);
        assertThat(((Timestamp) retry.get("next_retry_at")).toInstant()).isAfter(beforeRun);
        for (long id : new long[] {leased, retrying}) {
            assertThat(db.business().queryForObject("select count(*) from reconciliation_repair where application_id = ?"
                    + " and rule_id = 'OUTBOX_STUCK' and outcome = 'APPLIED'", Integer.class, id)).isEqualTo(1);
            assertThat(db.business().queryForObject("select count(*) from recovery_audit where action = 'RECONCILIATION_REPAIR'"
                    + " and detail like ?", Integer.class, "application " + id + " rule OUTBOX_STUCK%")).isEqualTo(1);
            assertThat(publishStatus(id)).isEqualTo("PUBLISHING");
        }

        publishAllDue();

        assertThat(publishStatus(leased)).isEqualTo("PUBLISHED");
        assertThat(publishStatus(retrying)).isEqualTo("PUBLISHED");
    }

    @Test
    void aRequeueNoPublisherActedOnIsAnIncidentNotAnotherRequeue() {
        long id = approvedApplication();
        String eventId = eventIdOf(id);
        // re-queued by an earlier run an hour ago, and no publisher has touched it since (publishing off on every node)
        db.business().update("""
                update outbox_event set event_status = 'RETRY', retry_count = 1, last_error_code = 'REQUEUED',
                       next_retry_at = now() - interval '1 hour' where event_id = ?
                """, eventId);
        db.business().update("update application set publish_status = 'PUBLISHING' where id = ?", id);
        ageApplication(db, id);
        Timestamp dueBefore = db.business().queryForObject("select next_retry_at from outbox_event where event_id = ?",
                Timestamp.class, eventId);

        runAndWait(api, "FULL");

        assertThat(db.business().queryForObject("select count(*) from reconciliation_incident where application_id = ?"
                + " and rule_id = 'OUTBOX_STUCK'", Integer.class, id)).isEqualTo(1);
        assertThat(db.business().queryForObject("select count(*) from reconciliation_repair where application_id = ?",
                Integer.class, id)).isZero();
        assertThat(db.business().queryForObject("select next_retry_at from outbox_event where event_id = ?", Timestamp.class,
                eventId)).as("not re-queued again").isEqualTo(dueBefore);
    }

    @Test
    void aPermanentFailureAndAnUnexplainedPublishedStatusAreIncidentsNeverRetried() {
        long failed = approvedApplication();
        String failedEvent = eventIdOf(failed);
        db.business().update("""
                update outbox_event set event_status = 'FAILED', retry_count = 1, last_error_code = 'CATALOG_REJECTED'
                 where event_id = ?
                """, failedEvent);
        db.business().update("update application set publish_status = 'FAILED' where id = ?", failed);
        long givenUp = approvedApplication();
        Api.Response giveUp = api.post("erin", "/api/admin/outbox/" + eventIdOf(givenUp) + "/give-up",
                "{\"reason\":\"asset withdrawn by owner\"}");
        assertThat(giveUp.status()).as(giveUp.toString()).isEqualTo(200);
        long unexplained = approvedApplication();
        // a manual UPDATE: PUBLISHED though the event was never delivered
        db.business().update("update application set publish_status = 'PUBLISHED' where id = ?", unexplained);
        for (long id : new long[] {failed, givenUp, unexplained}) {
            ageApplication(db, id);
        }

        runAndWait(api, "FULL");

        openIncident(db, failed, "OUTBOX_STUCK");
        assertThat(db.business().queryForObject("select event_status from outbox_event where event_id = ?", String.class, failedEvent))
                .as("a permanent failure is never retried automatically").isEqualTo("FAILED");
        openIncident(db, unexplained, "PUBLISHED_NOT_IN_CATALOG");
        assertThat(db.business().queryForObject("select event_status from outbox_event where event_id = ?", String.class,
                eventIdOf(unexplained))).isEqualTo("PENDING");
        assertThat(db.business().queryForObject("select count(*) from reconciliation_incident where application_id = ?",
                Integer.class, givenUp)).as("an operator's recorded give-up is a decision, not a difference").isZero();
        assertThat(db.business().queryForObject("select count(*) from reconciliation_repair where application_id in (?, ?, ?)",
                Integer.class, failed, givenUp, unexplained)).isZero();
    }

    /**
     * A step deadline's reminder is an outbox event too (DEADLINE_NOTIFICATION), delivered to the notification log and
     * never to the catalog, which therefore answers 404 for it. Reconciliation must not take that 404 for a lost
     * publication: the reminder is not sent again, and the application's publish status stays PUBLISHED, sweep after sweep.
     */
    @Test
    void aDeliveredDeadlineReminderIsNeitherResentNorMovesThePublishStatus() {
        Reminded reminded = publishedWithDeliveredReminder();
        long id = reminded.applicationId();
        Map<String, Object> delivered = notificationRow(reminded.reminder());
        assertThat(delivered).containsEntry("event_status", "PUBLISHED");

        for (int sweep = 1; sweep <= 2; sweep++) {
            ageApplication(db, id);
            runAndWait(api, "FULL");
            publishAllDue();

            assertThat(notificationRow(reminded.reminder())).as("the reminder after sweep %d", sweep).isEqualTo(delivered);
            assertThat(publishStatus(id)).as("publish status after sweep %d", sweep).isEqualTo("PUBLISHED");
        }
        assertThat(db.business().queryForObject("select count(*) from reconciliation_repair where application_id = ?",
                Integer.class, id)).isZero();
        assertThat(db.business().queryForObject("select count(*) from reconciliation_incident where application_id = ?",
                Integer.class, id)).isZero();
    }

    /** Only the catalog publication moves the publish status: an operator's retry of a failed reminder leaves it alone. */
    @Test
    void retryingAFailedReminderLeavesThePublishedAssetsStatusAlone() {
        Reminded reminded = publishedWithDeliveredReminder();
        long id = reminded.applicationId();
        // the reminder's delivery failed for good (a gateway refused it), after the asset was published
        db.business().update("update outbox_event set event_status = 'FAILED', retry_count = 1, last_error_code = 'HTTP_400'"
                + " where event_id = ?", reminded.reminder());
        long rowVersion = rowVersion(id);

        Api.Response retry = api.post("erin", "/api/admin/outbox/" + reminded.reminder() + "/retry", "{\"reason\":\"gateway fixed\"}");
        assertThat(retry.status()).as(retry.toString()).isEqualTo(200);
        assertThat(publishStatus(id)).isEqualTo("PUBLISHED");
        publishAllDue();

        assertThat(notificationRow(reminded.reminder())).containsEntry("event_status", "PUBLISHED");
        assertThat(publishStatus(id)).isEqualTo("PUBLISHED");
        assertThat(rowVersion(id)).as("delivering a notification never touches the application row").isEqualTo(rowVersion);
    }

    /**
     * Issue 29, item 11: the outbox retention deletes a delivered reminder once old, but keeps the application's only
     * catalog publication however old, because a full sweep compares it with the catalog; after the purge that sweep
     * finds nothing, and the asset stays PUBLISHED.
     */
    @Test
    void aFullSweepAfterTheOutboxRetentionFindsNothing() {
        Reminded reminded = publishedWithDeliveredReminder();
        long id = reminded.applicationId();
        String publication = db.business().queryForObject("select event_id from outbox_event where aggregate_type = 'APPLICATION'"
                + " and aggregate_id = ? and event_type = ?", String.class, Long.toString(id), Outbox.ASSET_PUBLISH_REQUESTED);
        db.business().update("update outbox_event set created_at = created_at - interval '400 days', updated_at = updated_at"
                + " - interval '400 days', published_at = published_at - interval '400 days' where aggregate_id = ?", Long.toString(id));

        outboxRetention.purge();

        assertThat(db.business().queryForList("select event_id from outbox_event where aggregate_type = 'APPLICATION' and aggregate_id = ?", String.class,
                Long.toString(id))).containsExactly(publication);
        ageApplication(db, id);
        runAndWait(api, "FULL");
        assertThat(db.business().queryForObject("select event_status from outbox_event where event_id = ?", String.class,
                publication)).isEqualTo("PUBLISHED");
        assertThat(publishStatus(id)).isEqualTo("PUBLISHED");
        assertThat(db.business().queryForObject("select count(*) from reconciliation_repair where application_id = ?",
                Integer.class, id)).isZero();
        assertThat(db.business().queryForObject("select count(*) from reconciliation_incident where application_id = ?",
                Integer.class, id)).isZero();
    }

    private record Reminded(long applicationId, String reminder) {
    }

    /** An application whose manager step was reminded, then approved; the reminder and the asset both delivered. */
    private Reminded publishedWithDeliveredReminder() {
        long id = ApiFlows.createDraft(api, "LOW", false);
        String run = ApiFlows.submit(api, id);
        fireReminder(run, id);
        approve(run);
        publishAllDue();
        assertThat(publishStatus(id)).isEqualTo("PUBLISHED");
        return new Reminded(id, db.business().queryForObject("select event_id from outbox_event where aggregate_type = 'APPLICATION' and aggregate_id = ?"
                + " and event_type = 'DEADLINE_NOTIFICATION'", String.class, Long.toString(id)));
    }

    /**
     * The manager step's reminder comes due now (its time in the todo projection moved back, the engine clock stays put)
     * and the cluster scheduler's deadline scan fires it.
     */
    private void fireReminder(String run, long applicationId) {
        assertThat(db.business().update("update task_projection set due_at = now() - interval '1 minute'"
                + " where process_instance_id = ? and task_definition_key = 'managerApproval' and state = 'OPEN'", run)).isOne();
        Awaitility.await().atMost(Duration.ofSeconds(75)).until(() -> db.business().queryForObject(
                "select count(*) from outbox_event where aggregate_type = 'APPLICATION' and aggregate_id = ? and event_type = 'DEADLINE_NOTIFICATION'", Integer.class,
                Long.toString(applicationId)) == 1);
    }

    private Map<String, Object> notificationRow(String eventId) {
        return db.business().queryForMap("select event_status, retry_count, published_at, last_error_code, next_retry_at, updated_at"
                + " from outbox_event where event_id = ?", eventId);
    }

    private long approvedApplication() {
        long id = ApiFlows.createDraft(api, "LOW", false);
        approve(ApiFlows.submit(api, id));
        return id;
    }

    /** The manager's and the final approval of {@code run}. */
    private void approve(String run) {
        for (String[] step : new String[][] {{"bob", "managerApproval"}, {"frank", "finalApproval"}}) {
            Api.Response response = ApiFlows.complete(api, step[0], ApiFlows.openTaskId(db, run, step[1]), "APPROVE");
            assertThat(response.status()).as(response.toString()).isEqualTo(200);
        }
    }

    /** Polls until nothing is due (bounded: a failing event of another test comes back only after its backoff). */
    private void publishAllDue() {
        for (int poll = 0; poll < 20 && publisher.publishDue() > 0; poll++) {
            // the next poll
        }
    }

    private String eventIdOf(long applicationId) {
        return db.business().queryForObject("select event_id from outbox_event where aggregate_type = 'APPLICATION'"
                + " and aggregate_id = ?", String.class, Long.toString(applicationId));
    }

    private long rowVersion(long applicationId) {
        return db.business().queryForObject("select row_version from application where id = ?", Long.class, applicationId);
    }

    private String publishStatus(long applicationId) {
        return db.business().queryForObject("select publish_status from application where id = ?", String.class, applicationId);
    }
}
