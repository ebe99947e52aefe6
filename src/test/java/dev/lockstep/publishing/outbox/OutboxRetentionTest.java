package dev.lockstep.publishing.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.TestDatabases;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Issue 29, item 11: the outbox retention deletes old delivered events and keeps what is still needed, read with plain
 * SQL; the lag view reads the unpublished rows through their partial index, not the table. Events of this test are due
 * far in the future, so no publisher of the shared context claims them.
 */
@LockstepIntegrationTest
class OutboxRetentionTest {

    static final Instant NOW = Instant.now();
    static final Timestamp ANCIENT = Timestamp.from(NOW.minus(Duration.ofDays(200)));
    static final Timestamp OLD = Timestamp.from(NOW.minus(Duration.ofDays(150)));
    static final Timestamp RECENT = Timestamp.from(NOW.minus(Duration.ofDays(10)));
    static final Timestamp FUTURE = Timestamp.from(NOW.plus(Duration.ofDays(3650)));
    static final String PUBLICATION = Outbox.ASSET_PUBLISH_REQUESTED;
    static final String REMINDER = "DEADLINE_NOTIFICATION";

    @Autowired TestDatabases databases;
    @Autowired OutboxStore store;
    @Autowired MeterRegistry meters;

    final String run = "oret" + System.nanoTime() + "-";

    @AfterEach
    void removeThisRunsEvents() {
        databases.business().update("delete from outbox_event where event_id like ?", run + "%");
    }

    @Test
    void deletesOldPublishedEventsInBatchesAndKeepsEachApplicationsNewestPublicationAndEverythingUndelivered() throws Exception {
        // a: two lifecycles published long ago: the newer one stays, reconciliation compares it with the catalog
        event("a-first", "a", PUBLICATION, "PUBLISHED", ANCIENT, ANCIENT);
        event("a-second", "a", PUBLICATION, "PUBLISHED", OLD, OLD);
        // b: its only publication stays however old; reminders go once old
        event("b-publication", "b", PUBLICATION, "PUBLISHED", ANCIENT, ANCIENT);
        for (int i = 0; i < 3; i++) {
            event("b-old-reminder-" + i, "b", REMINDER, "PUBLISHED", OLD, OLD);
        }
        event("b-recent-reminder", "b", REMINDER, "PUBLISHED", RECENT, RECENT);
        // c: a newer publication not delivered yet does not make the delivered one disposable
        event("c-published", "c", PUBLICATION, "PUBLISHED", ANCIENT, ANCIENT);
        event("c-pending", "c", PUBLICATION, "PENDING", RECENT, null);
        // d: a newer delivered publication does
        event("d-old", "d", PUBLICATION, "PUBLISHED", ANCIENT, ANCIENT);
        event("d-recent", "d", PUBLICATION, "PUBLISHED", RECENT, RECENT);
        // never delivered, however old: kept
        event("e-failed", "e", PUBLICATION, "FAILED", ANCIENT, null);
        event("f-retry", "f", PUBLICATION, "RETRY", ANCIENT, null);
        event("g-processing", "g", REMINDER, "PROCESSING", ANCIENT, null);
        event("h-pending", "h", REMINDER, "PENDING", ANCIENT, null);
        // a purgeable event another transaction holds (a re-queue about to commit, a prepared branch): skipped, not awaited
        event("i-held", "i", REMINDER, "PUBLISHED", OLD, OLD);
        double purgedBefore = meters.counter("lockstep.retention.purged", "table", "outbox_event").count();

        OutboxRetention retention = new OutboxRetention(store, new OutboxRetentionProperties(true, Duration.ofHours(1), 2,
                Duration.ofDays(90)), Clock.systemUTC(), meters);
        try (Connection holder = databases.business().getDataSource().getConnection()) {
            holder.setAutoCommit(false);
            try (Statement lock = holder.createStatement()) {
                lock.execute("select event_id from outbox_event where event_id = '" + run + "i-held' for update");
            }
            assertThat(retention.purge()).isEqualTo(5);
            holder.rollback();
        }

        assertThat(remaining()).containsExactlyInAnyOrder("a-second", "b-publication", "b-recent-reminder", "c-published",
                "c-pending", "d-recent", "e-failed", "f-retry", "g-processing", "h-pending", "i-held");
        assertThat(meters.counter("lockstep.retention.purged", "table", "outbox_event").count() - purgedBefore).isEqualTo(5);

        retention.purge();
        assertThat(remaining()).as("the held event goes once released").doesNotContain("i-held").hasSize(10);
    }

    /**
     * The lag view's one query on a table of mostly delivered events (as a real outbox is), analysed: the plan reads
     * outbox_event only through ix_outbox_unpublished. Inserted, analysed and explained in one transaction rolled back.
     */
    @Test
    void theLagQueryReadsOnlyTheUnpublishedEventsThroughTheirPartialIndex() throws Exception {
        DataSource business = databases.business().getDataSource();
        try (Connection connection = business.getConnection()) {
            connection.setAutoCommit(false);
            try (PreparedStatement fill = connection.prepareStatement("""
                    insert into outbox_event (event_id, aggregate_type, aggregate_id, event_type, payload_json, event_status,
                                              retry_count, next_retry_at, created_at, updated_at, published_at)
                    select ? || n, 'APPLICATION', ? || n, ?, '{}', case when n % 1000 = 0 then 'RETRY' else 'PUBLISHED' end,
                           0, ?, ?, ?, case when n % 1000 = 0 then null else ?::timestamptz end
                      from generate_series(1, 50000) n
                    """)) {
                fill.setString(1, run);
                fill.setString(2, run);
                fill.setString(3, PUBLICATION);
                fill.setTimestamp(4, FUTURE);
                fill.setTimestamp(5, OLD);
                fill.setTimestamp(6, OLD);
                fill.setTimestamp(7, OLD);
                fill.executeUpdate();
            }
            try (Statement statement = connection.createStatement()) {
                statement.execute("analyze outbox_event");
                List<JsonNode> scans = new ArrayList<>();
                try (ResultSet plan = statement.executeQuery("explain (format json) " + OutboxStore.LAG_QUERY)) {
                    plan.next();
                    scansOfOutbox(JsonMapper.builder().build().readTree(plan.getString(1)).get(0).get("Plan"), scans);
                }
                assertThat(scans).as("the plan's scans of outbox_event").isNotEmpty().allSatisfy(scan -> {
                    assertThat(scan.get("Node Type").asString()).as(scan.toString()).isIn("Index Only Scan", "Index Scan",
                            "Bitmap Heap Scan");
                });
                assertThat(scans.stream().map(scan -> scan.path("Index Name").asString(""))
                        .filter(name -> !name.isEmpty())).as("indexes read").containsOnly("ix_outbox_unpublished");
            } finally {
                connection.rollback();
            }
        }
    }

    @Test
    void theJobIsRegisteredWithTheClusterScheduler() {
        assertThat(databases.business().queryForList("select task_name from scheduled_tasks", String.class))
                .contains(PublishConfiguration.RETENTION_JOB);
    }

    /** Every node of the plan that reads outbox_event, with a bitmap scan's index found below its heap scan. */
    private static void scansOfOutbox(JsonNode node, List<JsonNode> scans) {
        if ("outbox_event".equals(node.path("Relation Name").asString(""))) {
            scans.add(node);
        }
        if (node.path("Node Type").asString("").equals("Bitmap Index Scan")) {
            scans.add(node);
        }
        node.path("Plans").forEach(child -> scansOfOutbox(child, scans));
    }

    private List<String> remaining() {
        return databases.business().queryForList("select substr(event_id, ?) from outbox_event where event_id like ?", String.class,
                run.length() + 1, run + "%");
    }

    private void event(String id, String aggregate, String type, String status, Timestamp createdAt, Timestamp publishedAt) {
        boolean open = status.equals("PENDING") || status.equals("RETRY") || status.equals("PROCESSING");
        databases.business().update("""
                insert into outbox_event (event_id, aggregate_type, aggregate_id, event_type, payload_json, event_status, owner,
                                          lease_until, retry_count, next_retry_at, created_at, updated_at, published_at)
                values (?, 'APPLICATION', ?, ?, '{}', ?, ?, ?, 0, ?, ?, ?, ?)
                """, run + id, run + aggregate, type, status, status.equals("PROCESSING") ? "test-node" : null,
                status.equals("PROCESSING") ? FUTURE : null, open ? FUTURE : createdAt, createdAt, createdAt, publishedAt);
    }
}
