package dev.lockstep.publishing.outbox;

import com.zaxxer.hikari.HikariDataSource;
import dev.lockstep.platform.audit.AuditRecord;
import dev.lockstep.platform.audit.AuditTrail;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The publisher's side of {@code outbox_event}: short local transactions on a plain (non-XA) pool of
 * the business database. A claim or a mark touches one database, so it needs no coordinator and none
 * of its forced log writes; and none of them is ever open while the catalog is being called.
 * Each change of a catalog publication moves {@code application.publish_status} with it, in the same transaction.
 */
class OutboxStore {

    /** The actor of the publisher's own entries: it gives an event up after its last attempt. */
    static final String PUBLISHER = "outbox-publisher";

    private final HikariDataSource pool;
    private final OutboxDialect dialect;
    private final String auditClock;

    /** {@code auditClock}: the clock source the audit entries of the outbox name. */
    OutboxStore(HikariDataSource pool, OutboxDialect dialect, String auditClock) {
        this.pool = pool;
        this.dialect = dialect;
        this.auditClock = auditClock;
    }

    /** Leases up to {@code batchSize} due events (new, retry due, or lease expired) to {@code owner}. */
    List<ClaimedEvent> claim(String owner, Instant now, Instant leaseUntil, int batchSize) {
        return inTransaction(connection -> {
            List<ClaimedEvent> claimed = dialect.claim(connection, owner, now, leaseUntil, batchSize);
            for (ClaimedEvent event : claimed) {
                movePublishStatus(connection, event.eventType(), event.aggregateType(), event.aggregateId(), "PUBLISHING", now);
            }
            return claimed;
        });
    }

    /**
     * Whether {@code event} is still this node's to send at {@code now}: the row is PROCESSING under the owner and
     * lease end of this claim (nobody took it over) and that lease has not run out. Asked of the database before
     * each send, because another node's claim moves the row, not anything this node can see in memory.
     */
    boolean stillHeld(ClaimedEvent event, Instant now) {
        return inTransaction(connection -> {
            try (PreparedStatement select = connection.prepareStatement("""
                    select count(*) from outbox_event
                     where event_id = ? and event_status = 'PROCESSING' and owner = ? and lease_until = ? and lease_until > ?
                    """)) {
                select.setString(1, event.eventId());
                select.setString(2, event.owner());
                select.setTimestamp(3, Timestamp.from(event.leaseUntil()));
                select.setTimestamp(4, Timestamp.from(now));
                try (ResultSet row = select.executeQuery()) {
                    row.next();
                    return row.getInt(1) == 1;
                }
            }
        });
    }

    /**
     * Hands back claimed events this node did not send: due again at once, as PENDING (RETRY if they had failed
     * before), with no attempt counted, so that no claim charges them {@code LEASE_EXPIRED} later. Only rows still
     * under this claim's owner and lease end are touched (a lease that ran out but was not taken over is still ours
     * to hand back: nothing was sent under it); returns how many.
     */
    int release(List<ClaimedEvent> unsent, Instant now) {
        return inTransaction(connection -> {
            int released = 0;
            for (ClaimedEvent event : unsent) {
                int updated;
                try (PreparedStatement release = connection.prepareStatement("""
                        update outbox_event
                           set event_status = case when retry_count = 0 then 'PENDING' else 'RETRY' end,
                               next_retry_at = ?, lease_until = null, updated_at = ?
                         where event_id = ? and event_status = 'PROCESSING' and owner = ? and lease_until = ?
                        """)) {
                    release.setTimestamp(1, Timestamp.from(now));
                    release.setTimestamp(2, Timestamp.from(now));
                    release.setString(3, event.eventId());
                    release.setString(4, event.owner());
                    release.setTimestamp(5, Timestamp.from(event.leaseUntil()));
                    updated = release.executeUpdate();
                }
                if (updated == 1) {
                    movePublishStatus(connection, event.eventType(), event.aggregateType(), event.aggregateId(),
                            event.retryCount() == 0 ? applicationStatus(EventStatus.PENDING) : applicationStatus(EventStatus.RETRY), now);
                    released++;
                }
            }
            return released;
        });
    }

    /**
     * Records an attempt's outcome if {@code event}'s lease is still this node's; false if another
     * node took the event over meanwhile (its own attempt will record the outcome).
     */
    boolean finish(ClaimedEvent event, Mark mark, Instant now) {
        return inTransaction(connection -> {
            int updated;
            try (PreparedStatement finish = connection.prepareStatement("""
                    update outbox_event
                       set event_status = ?, retry_count = retry_count + ?, next_retry_at = ?,
                           last_error_code = coalesce(?, last_error_code), last_error_detail = coalesce(?, last_error_detail),
                           published_at = ?, lease_until = null, updated_at = ?
                     where event_id = ? and event_status = 'PROCESSING' and owner = ? and lease_until = ?
                    """)) {
                finish.setString(1, mark.status().name());
                finish.setInt(2, mark.status() == EventStatus.PUBLISHED ? 0 : 1);
                finish.setTimestamp(3, Timestamp.from(mark.nextRetryAt() != null ? mark.nextRetryAt() : now));
                finish.setString(4, mark.errorCode());
                finish.setString(5, truncate(mark.errorDetail()));
                finish.setTimestamp(6, mark.status() == EventStatus.PUBLISHED ? Timestamp.from(now) : null);
                finish.setTimestamp(7, Timestamp.from(now));
                finish.setString(8, event.eventId());
                finish.setString(9, event.owner());
                finish.setTimestamp(10, Timestamp.from(event.leaseUntil()));
                updated = finish.executeUpdate();
            }
            if (updated == 1) {
                movePublishStatus(connection, event.eventType(), event.aggregateType(), event.aggregateId(),
                        applicationStatus(mark.status()), now);
                if (mark.status() == EventStatus.FAILED) {
                    audit(connection, now, PUBLISHER, "OUTBOX_GAVE_UP", event.aggregateId(), "outbox event " + event.eventId()
                            + " (" + event.eventType() + " " + event.aggregateType() + " " + event.aggregateId() + ") FAILED: "
                            + mark.errorCode() + " " + truncate(mark.errorDetail()));
                }
            }
            return updated == 1;
        });
    }

    /**
     * The audit entry of a change to an event, in the change's local transaction on the publisher's pool: never in
     * doubt, so it may hold the chain's lock briefly (a give-up or an operator's repair is rare). {@code aggregateId}:
     * the application's id, which every event's aggregate is ({@code Outbox}); one that is not a number is left to the
     * detail rather than failing the transaction that ends the event.
     */
    void audit(Connection connection, Instant now, String actor, String action, String aggregateId, String detail)
            throws SQLException {
        Long applicationId = aggregateId.matches("\\d{1,18}") ? Long.valueOf(aggregateId) : null;
        AuditTrail.appendOn(connection, now, auditClock, new AuditRecord(actor, AuditRecord.rolesOf(actor), action,
                applicationId, null, null, null, null, detail));
    }

    /** What an attempt ended with; {@code nextRetryAt} only for RETRY. A success keeps the last error for the record. */
    record Mark(EventStatus status, String errorCode, String errorDetail, Instant nextRetryAt) {

        static Mark published() {
            return new Mark(EventStatus.PUBLISHED, null, null, null);
        }
    }

    record EventRow(String eventId, String aggregateType, String aggregateId, String eventType, String status, String owner,
            Instant leaseUntil, int retryCount, Instant nextRetryAt, String lastErrorCode, String lastErrorDetail,
            Instant createdAt, Instant updatedAt, Instant publishedAt) {
    }

    /** Events oldest first, optionally of one status and type. */
    List<EventRow> list(String status, String type, int limit) {
        return inTransaction(connection -> {
            try (PreparedStatement select = connection.prepareStatement("""
                    select event_id, aggregate_type, aggregate_id, event_type, event_status, owner, lease_until, retry_count,
                           next_retry_at, last_error_code, last_error_detail, created_at, updated_at, published_at
                      from outbox_event
                     where (cast(? as varchar(32)) is null or event_status = ?) and (cast(? as varchar(128)) is null or event_type = ?)
                     order by created_at, event_id
                     fetch first ? rows only
                    """)) {
                select.setString(1, status);
                select.setString(2, status);
                select.setString(3, type);
                select.setString(4, type);
                select.setInt(5, limit);
                try (ResultSet rows = select.executeQuery()) {
                    List<EventRow> events = new ArrayList<>();
                    while (rows.next()) {
                        events.add(eventRow(rows));
                    }
                    return events;
                }
            }
        });
    }

    Optional<EventRow> find(Connection connection, String eventId, boolean forUpdate) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("""
                select event_id, aggregate_type, aggregate_id, event_type, event_status, owner, lease_until, retry_count,
                       next_retry_at, last_error_code, last_error_detail, created_at, updated_at, published_at
                  from outbox_event where event_id = ?""" + (forUpdate ? " for update" : ""))) {
            select.setString(1, eventId);
            try (ResultSet row = select.executeQuery()) {
                return row.next() ? Optional.of(eventRow(row)) : Optional.empty();
            }
        }
    }

    /** An operator's change of one event: status, attempts reset or not, and the application's publish status. */
    void operatorMark(Connection connection, EventRow event, EventStatus status, boolean resetAttempts, String errorCode,
            String applicationPublishStatus, Instant now) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement("""
                update outbox_event
                   set event_status = ?, retry_count = ?, next_retry_at = ?,
                       last_error_code = ?, lease_until = null, updated_at = ?
                 where event_id = ?
                """)) {
            update.setString(1, status.name());
            update.setInt(2, resetAttempts ? 0 : event.retryCount());
            update.setTimestamp(3, Timestamp.from(now));
            update.setString(4, errorCode);
            update.setTimestamp(5, Timestamp.from(now));
            update.setString(6, event.eventId());
            update.executeUpdate();
        }
        movePublishStatus(connection, event.eventType(), event.aggregateType(), event.aggregateId(), applicationPublishStatus, now);
    }

    record Lag(Map<String, Long> byStatus, Instant oldestPendingCreatedAt, Instant oldestProcessingSince,
            Instant oldestDueAt, Map<Integer, Long> retryCounts, Map<String, Long> lastErrorCodes) {
    }

    /**
     * The events not delivered yet, grouped finely enough to answer every question of the lag view in one read. The
     * predicate is that of the partial index {@code ix_outbox_unpublished} word for word (V401), which holds every column
     * read here: the reading scans the unpublished rows only, never the published ones the table keeps until the
     * retention purge ({@link #purgePublished}). PUBLISHED is therefore not counted: it is not lag.
     */
    static final String LAG_QUERY = """
            select event_status, retry_count, last_error_code, count(*), min(created_at), min(updated_at), min(next_retry_at)
              from outbox_event
             where event_status in ('PENDING', 'PROCESSING', 'RETRY', 'FAILED')
             group by event_status, retry_count, last_error_code""";

    /** A lag reading runs every few seconds for scrapes and health probes: it gives up rather than queue behind a lock. */
    private static final int LAG_QUERY_TIMEOUT_SECONDS = 3;

    /** Seed 000, section 37: how far behind the publisher is and why. */
    Lag lag(Instant now) {
        return inTransaction(connection -> {
            Map<String, Long> byStatus = new LinkedHashMap<>();
            for (EventStatus status : EventStatus.values()) {
                if (status != EventStatus.PUBLISHED) {
                    byStatus.put(status.name(), 0L);
                }
            }
            Map<Integer, Long> retryCounts = new TreeMap<>();
            Map<String, Long> errorCodes = new HashMap<>();
            Instant oldestPending = null;
            Instant oldestProcessing = null;
            Instant oldestDue = null;
            try (PreparedStatement select = connection.prepareStatement(LAG_QUERY)) {
                select.setQueryTimeout(LAG_QUERY_TIMEOUT_SECONDS);
                try (ResultSet rows = select.executeQuery()) {
                    while (rows.next()) {
                        String status = rows.getString(1);
                        long count = rows.getLong(4);
                        byStatus.merge(status, count, Long::sum);
                        retryCounts.merge(rows.getInt(2), count, Long::sum);
                        if (rows.getString(3) != null) {
                            errorCodes.merge(rows.getString(3), count, Long::sum);
                        }
                        switch (EventStatus.valueOf(status)) {
                            case PENDING, RETRY -> oldestPending = earliest(oldestPending, toInstant(rows.getTimestamp(5)));
                            case PROCESSING -> oldestProcessing = earliest(oldestProcessing, toInstant(rows.getTimestamp(6)));
                            default -> { }
                        }
                        if (!status.equals(EventStatus.FAILED.name())) {
                            oldestDue = earliest(oldestDue, toInstant(rows.getTimestamp(7)));
                        }
                    }
                }
            }
            // the earliest due time of all open events is the oldest due one, if it is due at all
            if (oldestDue != null && oldestDue.isAfter(now)) {
                oldestDue = null;
            }
            Map<String, Long> byFrequency = new LinkedHashMap<>();
            errorCodes.entrySet().stream()
                    .sorted(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
                    .forEach(code -> byFrequency.put(code.getKey(), code.getValue()));
            return new Lag(byStatus, oldestPending, oldestProcessing, oldestDue, retryCounts, byFrequency);
        });
    }

    /**
     * Deletes PUBLISHED events delivered before {@code deliveredBefore}, except each application's newest catalog
     * publication (reconciliation compares it with the catalog), in batches of {@code batchSize}, each its own short
     * transaction; returns how many. Rows another transaction holds are skipped, never waited for.
     */
    int purgePublished(Instant deliveredBefore, int batchSize) {
        int total = 0;
        int batch;
        do {
            batch = inTransaction(connection -> dialect.purgeBatch(connection, deliveredBefore, batchSize));
            total += batch;
        } while (batch == batchSize);
        return total;
    }

    interface SqlWork<T> {
        T run(Connection connection) throws SQLException;
    }

    /** One local transaction on the publisher's pool; rolled back on any failure. */
    <T> T inTransaction(SqlWork<T> work) {
        try (Connection connection = pool.getConnection()) {
            connection.setAutoCommit(false);
            try {
                T result = work.run(connection);
                connection.commit();
                return result;
            } catch (SQLException | RuntimeException e) {
                rollback(connection, e);
                throw e;
            }
        } catch (SQLException e) {
            throw new OutboxUnavailable(e);
        }
    }

    /**
     * A connection the failure broke (a socket timeout, a dropped server) cannot roll back either; the failure that
     * says why is the one to report, so the rollback's own goes along with it instead of replacing it.
     */
    private static void rollback(Connection connection, Exception failure) {
        try {
            connection.rollback();
        } catch (SQLException rollbackFailed) {
            failure.addSuppressed(rollbackFailed);
        }
    }

    static String applicationStatus(EventStatus status) {
        return switch (status) {
            case PENDING -> "PENDING";
            case PROCESSING, RETRY -> "PUBLISHING";
            case PUBLISHED -> "PUBLISHED";
            case FAILED -> "FAILED";
        };
    }

    /**
     * The application's publish status follows its catalog publication only: a deadline notification (or any other
     * event type) is delivered elsewhere and says nothing about whether the asset is published.
     */
    private static void movePublishStatus(Connection connection, String eventType, String aggregateType, String aggregateId,
            String status, Instant now) throws SQLException {
        if (!Outbox.ASSET_PUBLISH_REQUESTED.equals(eventType) || !"APPLICATION".equals(aggregateType)) {
            return;
        }
        try (PreparedStatement update = connection.prepareStatement("""
                update application set publish_status = ?, row_version = row_version + 1, updated_at = ?
                 where id = ? and approval_status = 'APPROVED' and publish_status <> ?
                """)) {
            update.setString(1, status);
            update.setTimestamp(2, Timestamp.from(now));
            update.setLong(3, Long.parseLong(aggregateId));
            update.setString(4, status);
            update.executeUpdate();
        }
    }

    private static Instant earliest(Instant known, Instant candidate) {
        return known == null || candidate.isBefore(known) ? candidate : known;
    }

    private static EventRow eventRow(ResultSet rows) throws SQLException {
        return new EventRow(rows.getString(1), rows.getString(2), rows.getString(3), rows.getString(4), rows.getString(5),
                rows.getString(6), toInstant(rows.getTimestamp(7)), rows.getInt(8), toInstant(rows.getTimestamp(9)),
                rows.getString(10), rows.getString(11), toInstant(rows.getTimestamp(12)), toInstant(rows.getTimestamp(13)),
                toInstant(rows.getTimestamp(14)));
    }

    private static Instant toInstant(Timestamp timestamp) {
        return timestamp == null ? null : timestamp.toInstant();
    }

    private static String truncate(String detail) {
        return detail == null || detail.length() <= 1000 ? detail : detail.substring(0, 1000);
    }

    /** The business database cannot be reached from the publisher's pool; the next poll tries again. */
    static class OutboxUnavailable extends RuntimeException {
        OutboxUnavailable(SQLException cause) {
            super("outbox: " + cause.getMessage(), cause);
        }
    }
}
