package dev.lockstep.bench;

import dev.lockstep.bench.Benchmark.OperationLatency;
import dev.lockstep.bench.ServiceUnderTest.Deployment;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * Publishing measured on the XA deployment (docs/publishing.md): how fast the publisher drains a backlog of
 * approved applications into the reference catalog, and how long an approval takes to become PUBLISHED while
 * clients keep approving. Both are read from the outbox's own timestamps ({@code created_at} is written by the
 * final approval's transaction, {@code published_at} by the publisher's mark; one JVM's clock), never from
 * the clients.
 */
final class PublishBenchmark {

    private static final Duration DRAIN_LIMIT = Duration.ofMinutes(10);
    /** The shipped defaults, passed explicitly so that the report names what was measured. */
    private static final Duration POLL_INTERVAL = Duration.ofSeconds(1);
    private static final int BATCH_SIZE = 50;

    /**
     * {@code backlogEvents} approvals made by a node that only writes events, then delivered by a restarted node
     * in {@code drainSeconds} (first to last {@code published_at}); {@code underLoad}: approve → PUBLISHED of the
     * approvals made during a window of {@code clients} clients with the publisher running beside them.
     */
    record Result(int clients, long backlogEvents, double drainSeconds, double eventsPerSecond, double approvalsPerSecond,
            long eventsUnderLoad, OperationLatency approveToPublished, Duration pollInterval, int batchSize) {
    }

    private PublishBenchmark() {
    }

    static Result run(BenchmarkSettings settings, int clients) throws Exception {
        Path home = settings.outputDir().resolve("var-publish").toAbsolutePath();
        ServiceUnderTest.deleteRecursively(home);
        // poll-interval 0: this node writes events and publishes none, so the backlog builds up
        try (ServiceUnderTest writer = ServiceUnderTest.start(Deployment.XA, settings, home, "publish-backlog-service.log",
                List.of(), List.of("--lockstep.publish.poll-interval=0"))) {
            LoadRun.run(writer.baseUrl(), clients, Duration.ZERO, settings.measure(), () -> { }, () -> { });
        }
        try (ServiceUnderTest publisher = ServiceUnderTest.start(Deployment.XA, settings, home, "publish-service.log",
                List.of(), List.of("--lockstep.publish.poll-interval=" + POLL_INTERVAL.toMillis() + "ms",
                        "--lockstep.publish.batch-size=" + BATCH_SIZE))) {
            String business = publisher.jdbcUrls.get("lockstep_business");
            awaitNothingToDeliver(business);
            Drain drain = drain(business);

            Instant windowStart = Instant.now();
            LoadRun.Result load = LoadRun.run(publisher.baseUrl(), clients, settings.warmup(), settings.measure(),
                    () -> { }, () -> { });
            awaitNothingToDeliver(business);
            Histogram approveToPublished = approveToPublishedMicros(business, windowStart);
            return new Result(clients, drain.events(), drain.seconds(), drain.events() / drain.seconds(),
                    load.cyclesPerSecond(), approveToPublished.getTotalCount(), OperationLatency.of(approveToPublished, 0),
                    POLL_INTERVAL, BATCH_SIZE);
        }
    }

    private record Drain(long events, double seconds) {
    }

    private static Drain drain(String business) throws SQLException {
        try (Connection db = DriverManager.getConnection(business, "postgres", "");
                PreparedStatement statement = db.prepareStatement("select count(*), min(published_at), max(published_at)"
                        + " from outbox_event where event_status = 'PUBLISHED'");
                ResultSet row = statement.executeQuery()) {
            row.next();
            long events = row.getLong(1);
            if (events < 2) {
                throw new IllegalStateException("the backlog held " + events + " events: too few to time a drain");
            }
            Duration span = Duration.between(row.getTimestamp(2).toInstant(), row.getTimestamp(3).toInstant());
            return new Drain(events, span.toNanos() / 1e9);
        }
    }

    private static Histogram approveToPublishedMicros(String business, Instant since) throws SQLException {
        Histogram micros = new Histogram(3);
        try (Connection db = DriverManager.getConnection(business, "postgres", "");
                PreparedStatement statement = db.prepareStatement("select created_at, published_at from outbox_event"
                        + " where event_status = 'PUBLISHED' and created_at >= ?")) {
            statement.setTimestamp(1, Timestamp.from(since));
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    micros.recordValue(Duration.between(rows.getTimestamp(1).toInstant(),
                            rows.getTimestamp(2).toInstant()).toNanos() / 1000);
                }
            }
        }
        return micros;
    }

    /** Waits until every event is PUBLISHED; one left FAILED or still due after the limit ends the stage. */
    private static void awaitNothingToDeliver(String business) throws SQLException {
        Instant deadline = Instant.now().plus(DRAIN_LIMIT);
        try (Connection db = DriverManager.getConnection(business, "postgres", "");
                PreparedStatement statement = db.prepareStatement(
                        "select count(*) from outbox_event where event_status <> 'PUBLISHED'")) {
            while (true) {
                try (ResultSet row = statement.executeQuery()) {
                    row.next();
                    if (row.getLong(1) == 0) {
                        return;
                    }
                    if (Instant.now().isAfter(deadline)) {
                        throw new IllegalStateException(row.getLong(1) + " outbox events not PUBLISHED " + DRAIN_LIMIT
                                + " after the load; see publish-service.log and GET /api/admin/outbox");
                    }
                }
                ServiceUnderTest.sleep(Duration.ofMillis(200));
            }
        }
    }

    static String markdown(Result result) {
        OperationLatency latency = result.approveToPublished();
        return String.format(Locale.ROOT, """
                ## Publishing

                Backlog: %,d approvals written by a node with the publisher off, then delivered to the reference catalog \
                by a restarted node in %.1f s: **%.0f events/s** (batch %d per claim).

                Under load: %d clients approving (%.1f cycles/s) with the publisher running beside them; %,d approvals \
                of the window, approve → PUBLISHED from the outbox's own timestamps (poll interval %d ms):

                | events | p50 ms | p95 ms | p99 ms | max ms |
                |---:|---:|---:|---:|---:|
                | %d | %.1f | %.1f | %.1f | %.1f |
                """, result.backlogEvents(), result.drainSeconds(), result.eventsPerSecond(), result.batchSize(),
                result.clients(), result.approvalsPerSecond(), result.eventsUnderLoad(), result.pollInterval().toMillis(),
                latency.count(), latency.p50Millis(), latency.p95Millis(), latency.p99Millis(), latency.maxMillis());
    }
}
