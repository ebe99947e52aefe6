package dev.lockstep.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.chaos.UseCaseCrashChaosIT.CrashedUseCase;
import dev.lockstep.chaos.UseCaseCrashChaosIT.Subject;
import dev.lockstep.chaos.report.ScenarioRecord;
import dev.lockstep.chaos.support.CatalogProcess;
import dev.lockstep.chaos.support.LockstepClient.Answer;
import dev.lockstep.chaos.support.LockstepClient;
import dev.lockstep.chaos.support.PostgresServer;
import dev.lockstep.chaos.support.ServiceProcess.Timeouts;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The publish rows of seed 000 section 40, out of process: the service JVM (Byteman) halted at the
 * publish path's failure windows, and the reference catalog running as a process of its own on a
 * PostgreSQL server of its own, reached by the service only over HTTP ({@code lockstep.publish.catalog-url}).
 * Each scenario brings a new application to its final approval, breaks one window, restarts what died,
 * and then expects, read with plain SQL from the business, the workflow and the catalog databases:
 * the application APPROVED and PUBLISHED, its one event PUBLISHED, exactly one asset row and one inbox
 * row in the catalog, and exactly the duplicate deliveries and outcome queries the window implies
 * (the catalog's own counters). The final approval is then retried with the same Idempotency-Key: one
 * approval, replayed exactly when it had committed.
 */
class PublishChaosIT extends ChaosSuite {

    private static final int FIRST_NUMBER = 39;
    private static final Duration RECOVERY_WINDOW = Duration.ofSeconds(120);
    private static final Duration PUBLISH_WINDOW = Duration.ofSeconds(120);
    /** The publisher's read timeout in these JVMs, and the catalog's late answer that outlasts it (scenario 42). */
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(4);
    private static final Duration LATE_ANSWER = Duration.ofSeconds(8);

    private static final String INBOX = "lockstep_catalog_inbox_messages_total";
    private static final String REQUESTS = "http_server_requests_seconds_count";
    private static final String[] LOOKUP = {"method=\"GET\"", "uri=\"/catalog/publications/{eventId}\""};

    static PostgresServer catalogDatabase;
    static CatalogProcess catalog;
    static Duration catalogAnswerDelay;

    @BeforeAll
    static void startDatabasesAndCatalog() throws SQLException {
        h = new ChaosHarness();
        PostgresServer external = PostgresServer.externalFrom("chaos.db.catalog");
        catalogDatabase = external != null ? external
                : new PostgresServer("lockstep_catalog", h.work.resolve("pg-catalog"), ChaosHarness.freePort());
        catalogDatabase.start();
        try (Connection c = h.business.connect(); Statement s = c.createStatement(); ResultSet r = s.executeQuery("select version()")) {
            r.next();
            REPORT.describe(h.serviceJar, r.getString(1));
        }
        catalog = new CatalogProcess(h.serviceJar, h.work.resolve("catalog"), ChaosHarness.freePort(), catalogDatabase);
        h.serviceSettings.addAll(List.of(
                "--lockstep.publish.catalog-url=" + catalog.catalogUrl(),
                "--lockstep.publish.catalog-token=" + catalog.token(),
                "--lockstep.publish.connect-timeout=1s",
                "--lockstep.publish.read-timeout=" + READ_TIMEOUT.toSeconds() + "s",
                // longer than one attempt (2 x (connect + read)), short enough that an orphaned lease expires during a restart
                "--lockstep.publish.lease=12s",
                "--lockstep.publish.poll-interval=500ms",
                "--lockstep.publish.backoff-initial=1s"));
    }

    @AfterAll
    static void stopAll() {
        if (catalog != null) {
            catalog.stop();
        }
        if (catalogDatabase != null) {
            catalogDatabase.stop();
        }
    }

    /** What the publish path holds for one application: business, workflow and catalog database, plain SQL. */
    record PublishState(String approvalStatus, String publishStatus, String events, long catalogAssets, String openTasks) {
    }

    private static final PublishState PUBLISHED_ONCE = new PublishState("APPROVED", "PUBLISHED", "PUBLISHED", 1, "none");

    /**
     * One failure window of the publish path: where it breaks, how, what the three databases must show at
     * the halt ({@code null}: nothing halts), and what the catalog must have seen by the end: duplicate
     * deliveries its inbox refused, queries of the event's outcome ({@code null}: not the window's point,
     * only recorded - on a loaded machine a slow first answer is rightly queried), and the failed attempts.
     */
    enum PublishFault {
        BEFORE_OUTBOX_WRITE("final approval halted before its publish event is written",
                "the final approval's XA transaction, after the engine completed the last task and the application was closed,"
                        + " at the entry of Outbox.requestAssetPublication (nothing prepared yet)",
                "halt-before-outbox-write.btm",
                "Rolled back together: application still APPROVING with publish_status NOT_STARTED, no outbox_event row,"
                        + " the final task still open in the engine, nothing in the catalog. The same decision retried with its"
                        + " Idempotency-Key after the restart then approves, and the event is published once.",
                new PublishState("APPROVING", "NOT_STARTED", "none", 0, "finalApproval"), 0, null, 0),
        AFTER_COMMIT_BEFORE_PUBLISHER("JVM halted after the final approval committed, before any publisher ran",
                "right after the final approval's two-phase commit returned (JtaTransactionManager.doCommit), before the"
                        + " request thread answered or ran any after-commit callback, before a publisher claimed the event",
                "halt-after-approval-commit.btm",
                "The committed outbox event survives the crash (PENDING, never claimed); the restarted service's publisher"
                        + " delivers it: application PUBLISHED, exactly one asset row in the catalog.",
                new PublishState("APPROVED", "PENDING", "PENDING", 0, "none"), 0, null, 0),
        AFTER_CATALOG_BEFORE_MARK("catalog applied the event, publisher halted before marking it PUBLISHED",
                "the publisher thread, at the exit of CatalogClient.publish with a 2xx answer, before OutboxStore.finish",
                "halt-after-catalog-answer.btm",
                "After the restart the event's lease expires and it is sent again under the same event id; the catalog's"
                        + " inbox refuses the second row (one duplicate counted), answers the stored publication, and the event"
                        + " ends PUBLISHED: one asset row, one inbox row.",
                new PublishState("APPROVED", "PUBLISHING", "PROCESSING", 1, "none"), 1, null, 1),
        CATALOG_TIMEOUT_BUT_APPLIED("catalog times out but did publish",
                "the publisher's create call: the catalog process commits the publication, then holds its answer "
                        + LATE_ANSWER.toSeconds() + " s, past the publisher's read timeout of " + READ_TIMEOUT.toSeconds() + " s",
                null,
                "The publisher does not resend the create: it asks the catalog for the event's outcome"
                        + " (GET /catalog/publications/{eventId}), finds it applied and marks the event PUBLISHED. One asset row,"
                        + " no duplicate delivery, no failed attempt.",
                null, 0, 1, 0);

        final String title;
        final String faultPoint;
        final String rule;
        final String expected;
        final PublishState atHalt;
        final int duplicates;
        final Integer lookups;
        final int failedAttempts;

        PublishFault(String title, String faultPoint, String rule, String expected, PublishState atHalt, int duplicates,
                Integer lookups, int failedAttempts) {
            this.title = title;
            this.faultPoint = faultPoint;
            this.rule = rule;
            this.expected = expected;
            this.atHalt = atHalt;
            this.duplicates = duplicates;
            this.lookups = lookups;
            this.failedAttempts = failedAttempts;
        }

        String injection() {
            return rule == null
                    ? "catalog process started with lockstep.catalog.answer-delay=" + LATE_ANSWER.toSeconds()
                            + "s; service with lockstep.publish.read-timeout=" + READ_TIMEOUT.toSeconds() + "s"
                    : "Byteman rule " + rule + ": Runtime.halt(1) of the service JVM";
        }

        Duration catalogAnswerDelay() {
            return rule == null ? LATE_ANSWER : Duration.ZERO;
        }

        /** The final approval committed before the fault, so its retry is a replay. */
        boolean approvalCommitted() {
            return this != BEFORE_OUTBOX_WRITE;
        }
    }

    static Stream<Arguments> scenarios() {
        List<Arguments> scenarios = new ArrayList<>();
        for (PublishFault fault : PublishFault.values()) {
            scenarios.add(Arguments.of(FIRST_NUMBER + fault.ordinal(), fault));
        }
        return scenarios.stream();
    }

    @ParameterizedTest(name = "{0}. publish: {1}")
    @MethodSource("scenarios")
    void publishFailureWindow(int number, PublishFault fault) {
        ScenarioRecord s = REPORT.begin(number, "Publish: " + fault.title, fault.faultPoint, fault.injection(), fault.expected);
        s.useCase = "final decision → publish";
        ensureCatalog(fault.catalogAnswerDelay());
        h.ensureService(Timeouts.SHORT);
        assertThat(awaitNothingUnpublished())
                .as("every earlier event is published, so the armed rule can only meet this scenario's").isZero();

        Subject subject = CrashedUseCase.FINAL_DECISION.prepare(h.client, "chaos use case");
        long app = subject.applicationId();
        s.rowsBefore.putAll(rows(app));
        Map<String, Double> catalogBefore = catalogCounters();
        String key = LockstepClient.newKey();
        long t0 = System.nanoTime();
        Answer answer;
        if (fault.rule != null) {
            h.arm(fault.rule);
            try {
                answer = subject.send(h.client, key);
                h.service.awaitExit(Duration.ofSeconds(60));
            } finally {
                h.disarm(fault.rule);
            }
        } else {
            answer = subject.send(h.client, key);
            assertThat(answer.status()).as("the final approval: " + answer).isEqualTo(200);
        }
        s.clientAnswer = answer.toString();

        if (fault.rule != null) {
            s.rowsAfterFault.putAll(rows(app));
            s.preparedAfterFault = h.prepared();
            s.coordinatorLogAfterFault = h.coordinatorLog();
            requireHaltEvidence(s, fault, app);
            assertThat(state(app)).as("the three databases at the halt").isEqualTo(fault.atHalt);
            h.restartAndAwaitNoPrepared(s, Timeouts.SHORT, RECOVERY_WINDOW);
        }

        Answer retry = subject.send(h.client, key);
        s.note("the final approval retried with the same Idempotency-Key: " + retry.status() + (retry.replayed() ? " (replayed)" : ""));
        assertThat(retry.status()).as("the retry: " + retry).isEqualTo(200);
        assertThat(retry.replayed()).as("replayed exactly when the approval had committed").isEqualTo(fault.approvalCommitted());

        PublishState end = awaitPublished(app);
        s.timeToRecoveryMillis = Duration.ofNanos(System.nanoTime() - t0).toMillis();
        s.rowsAfterRecovery.putAll(rows(app));
        s.preparedAfterRecovery = h.prepared();
        s.observedOutcome = end.toString();
        assertThat(end).as("published exactly once").isEqualTo(PUBLISHED_ONCE);
        String eventId = eventId(app);
        assertThat(count(catalogDatabase, "select count(*) from inbox_message where event_id = ?", eventId))
                .as("inbox rows of event " + eventId).isEqualTo(1);
        assertThat(count(h.business, "select retry_count from outbox_event where event_id = ?", eventId))
                .as("failed attempts on event " + eventId).isEqualTo(fault.failedAttempts);

        Map<String, Double> expectedCounts = expectedCatalogCounters(fault);
        Map<String, Double> seen = awaitCatalogCounters(catalogBefore, expectedCounts);
        s.note("what the catalog process counted during the scenario: " + seen);
        assertThat(seen).as("deliveries the catalog applied and refused, and outcome queries it answered")
                .containsAllEntriesOf(expectedCounts);
        if (fault.rule == null) {
            List<String> held = catalog.logLines("holding the answer to event " + eventId);
            s.faultFired = "catalog process log: " + String.join("\n", held) + "\nthen the publisher asked for the outcome: "
                    + seen.get("lookups").intValue() + " GET /catalog/publications/{eventId}";
            assertThat(held).as("the catalog held the answer to this event's create").hasSize(1);
        }
        assertThat(h.invariants(s, false).violations()).isEmpty();
    }

    /** The halt's trace names this scenario's application or event; nothing is left prepared by it. */
    private static void requireHaltEvidence(ScenarioRecord s, PublishFault fault, long app) {
        String trace = h.faultTrace();
        List<String> prepared = h.prepared();
        String subject = fault == PublishFault.AFTER_CATALOG_BEFORE_MARK ? "event " + eventId(app) : "application " + app;
        s.haltPoint = fault.name();
        s.faultFired = trace + "\npg_prepared_xacts at the halt: " + (prepared.isEmpty() ? "none" : String.join("; ", prepared));
        assertThat(trace).as("the CHAOS line of " + fault.rule + " in " + h.service.log()).startsWith("CHAOS halt").contains(subject);
        assertThat(prepared).as("prepared branches at the halt").isEmpty();
    }

    private static void ensureCatalog(Duration answerDelay) {
        if (catalog.isAlive() && answerDelay.equals(catalogAnswerDelay)) {
            return;
        }
        catalog.stop();
        catalog.start(answerDelay);
        catalogAnswerDelay = answerDelay;
    }

    private static Map<String, Double> catalogCounters() {
        Map<String, Double> counters = new LinkedHashMap<>();
        counters.put("applied", catalog.metric(INBOX, "result=\"FIRST\""));
        counters.put("duplicates", catalog.metric(INBOX, "result=\"DUPLICATE\""));
        counters.put("lookups", catalog.metric(REQUESTS, LOOKUP));
        return counters;
    }

    private static Map<String, Double> expectedCatalogCounters(PublishFault fault) {
        Map<String, Double> expected = new LinkedHashMap<>(Map.of("applied", 1.0, "duplicates", (double) fault.duplicates));
        if (fault.lookups != null) {
            expected.put("lookups", (double) fault.lookups);
        }
        return expected;
    }

    /** The counters' growth since {@code before}; a request is counted when its answer is done, so wait briefly for the expected. */
    private static Map<String, Double> awaitCatalogCounters(Map<String, Double> before, Map<String, Double> expected) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (true) {
            Map<String, Double> now = catalogCounters();
            Map<String, Double> delta = new LinkedHashMap<>();
            now.forEach((name, value) -> delta.put(name, value - before.get(name)));
            if (delta.entrySet().containsAll(expected.entrySet()) || System.nanoTime() > deadline) {
                return delta;
            }
            ChaosHarness.sleep(250);
        }
    }

    /** Unpublished events left once the running publisher had its window: an earlier scenario that failed at its halt leaves one for it. */
    private static long awaitNothingUnpublished() {
        long deadline = System.nanoTime() + PUBLISH_WINDOW.toNanos();
        long unpublished = count(h.business, "select count(*) from outbox_event where event_status <> 'PUBLISHED'", null);
        while (unpublished > 0 && System.nanoTime() < deadline) {
            ChaosHarness.sleep(250);
            unpublished = count(h.business, "select count(*) from outbox_event where event_status <> 'PUBLISHED'", null);
        }
        return unpublished;
    }

    private static PublishState awaitPublished(long app) {
        long deadline = System.nanoTime() + PUBLISH_WINDOW.toNanos();
        PublishState state = state(app);
        while (!"PUBLISHED".equals(state.publishStatus()) && System.nanoTime() < deadline) {
            ChaosHarness.sleep(250);
            state = state(app);
        }
        return state;
    }

    private static PublishState state(long app) {
        Map<String, Object> engine = h.rows(app);
        try (Connection b = h.business.connect();
                PreparedStatement application = b.prepareStatement("select approval_status, publish_status from application where id = ?")) {
            application.setLong(1, app);
            try (ResultSet r = application.executeQuery()) {
                r.next();
                return new PublishState(r.getString(1), r.getString(2),
                        ChaosHarness.one(b, "select coalesce(string_agg(event_status, ', '), 'none') from outbox_event"
                                + " where aggregate_type = 'APPLICATION' and aggregate_id = ?", Long.toString(app)),
                        count(catalogDatabase, "select count(*) from published_asset where application_id = ?", app),
                        String.valueOf(engine.get("workflow: open tasks")));
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The report's rows: both XA databases (the harness's view) plus the outbox and the catalog. */
    private static Map<String, Object> rows(long app) {
        Map<String, Object> rows = new LinkedHashMap<>(h.rows(app));
        String id = Long.toString(app);
        try (Connection b = h.business.connect(); Connection c = catalogDatabase.connect()) {
            rows.put("business: application publish_status", ChaosHarness.one(b, "select publish_status from application where id = ?", app));
            rows.put("business: outbox_event rows", ChaosHarness.one(b, "select coalesce(string_agg('event_id=' || event_id"
                    + " || ', status=' || event_status || ', owner=' || coalesce(owner, 'null') || ', retry_count=' || retry_count"
                    + " || ', last_error_code=' || coalesce(last_error_code, 'null'), '; '), 'none') from outbox_event"
                    + " where aggregate_type = 'APPLICATION' and aggregate_id = ?", id));
            rows.put("catalog: published_asset rows", ChaosHarness.one(c, "select count(*) from published_asset where application_id = ?", app));
            String eventId = ChaosHarness.one(b, "select coalesce(max(event_id), '') from outbox_event where aggregate_type = 'APPLICATION'"
                    + " and aggregate_id = ?", id);
            rows.put("catalog: inbox_message rows of its event", ChaosHarness.one(c, "select count(*) from inbox_message where event_id = ?",
                    eventId));
        } catch (SQLException e) {
            rows.put("error", e.getMessage());
        }
        return rows;
    }

    private static String eventId(long app) {
        try (Connection b = h.business.connect()) {
            return ChaosHarness.one(b, "select event_id from outbox_event where aggregate_type = 'APPLICATION' and aggregate_id = ?",
                    Long.toString(app));
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static long count(PostgresServer server, String sql, Object parameter) {
        try (Connection c = server.connect()) {
            if (parameter != null) {
                return Long.parseLong(ChaosHarness.one(c, sql, parameter));
            }
            try (Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
                r.next();
                return r.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
