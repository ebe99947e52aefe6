package dev.lockstep.publishing.outbox;

import dev.lockstep.platform.DatabaseVendor;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The statements that differ by vendor: the claim and the retention purge's batch. Everything else the publisher runs is plain
 * SQL both accept ({@link OutboxStore}). Both claims skip rows another node has locked, so several
 * nodes poll side by side without waiting on each other, and take events whose lease expired; the purge
 * skips them too, so it never waits for a publisher or a prepared branch holding an event.
 */
enum OutboxDialect {

    /** One statement: lock due rows skipping locked ones, lease them, return them. */
    POSTGRESQL {
        @Override
        List<ClaimedEvent> claim(Connection connection, String owner, Instant now, Instant leaseUntil, int batchSize)
                throws SQLException {
            try (PreparedStatement claim = connection.prepareStatement("""
                    update outbox_event
                       set retry_count = retry_count + case when event_status = 'PROCESSING' then 1 else 0 end,
                           last_error_code = case when event_status = 'PROCESSING' then 'LEASE_EXPIRED' else last_error_code end,
                           event_status = 'PROCESSING', owner = ?, lease_until = ?, next_retry_at = ?, updated_at = ?
                     where event_id in (select event_id from outbox_event
                                         where event_status in ('PENDING', 'RETRY', 'PROCESSING') and next_retry_at <= ?
                                         order by next_retry_at
                                         limit ?
                                         for update skip locked)
                    returning event_id, aggregate_type, aggregate_id, event_type, payload_json, retry_count, created_at
                    """)) {
                claim.setString(1, owner);
                claim.setTimestamp(2, Timestamp.from(leaseUntil));
                claim.setTimestamp(3, Timestamp.from(leaseUntil));
                claim.setTimestamp(4, Timestamp.from(now));
                claim.setTimestamp(5, Timestamp.from(now));
                claim.setInt(6, batchSize);
                try (ResultSet rows = claim.executeQuery()) {
                    return read(rows, owner, leaseUntil);
                }
            }
        }

        @Override
        int purgeBatch(Connection connection, Instant deliveredBefore, int batchSize) throws SQLException {
            // the outer status test is evaluated again on a row changed since the snapshot: a re-queued event is kept
            try (PreparedStatement purge = connection.prepareStatement("""
                    delete from outbox_event
                     where event_status = 'PUBLISHED'
                       and event_id in (select event_id from outbox_event o where %s limit ? for update skip locked)
                    """.formatted(PURGEABLE))) {
                purge.setTimestamp(1, Timestamp.from(deliveredBefore));
                purge.setString(2, Outbox.ASSET_PUBLISH_REQUESTED);
                purge.setInt(3, batchSize);
                return purge.executeUpdate();
            }
        }
    },

    /**
     * Oracle refuses FOR UPDATE with FETCH FIRST and a locking subquery inside UPDATE: lock by fetching
     * at most {@code batchSize} rows from a SKIP LOCKED cursor (rows lock as they are fetched), then
     * lease them by id and read them back, all in the caller's transaction.
     */
    ORACLE {
        @Override
        List<ClaimedEvent> claim(Connection connection, String owner, Instant now, Instant leaseUntil, int batchSize)
                throws SQLException {
            List<String> ids = new ArrayList<>();
            try (PreparedStatement due = connection.prepareStatement("""
                    select event_id from outbox_event
                     where event_status in ('PENDING', 'RETRY', 'PROCESSING') and next_retry_at <= ?
                     order by next_retry_at
                     for update skip locked
                    """)) {
                due.setTimestamp(1, Timestamp.from(now));
                due.setFetchSize(batchSize);
                try (ResultSet rows = due.executeQuery()) {
                    while (ids.size() < batchSize && rows.next()) {
                        ids.add(rows.getString(1));
                    }
                }
            }
            List<ClaimedEvent> claimed = new ArrayList<>();
            try (PreparedStatement lease = connection.prepareStatement("""
                    update outbox_event
                       set retry_count = retry_count + case when event_status = 'PROCESSING' then 1 else 0 end,
                           last_error_code = case when event_status = 'PROCESSING' then 'LEASE_EXPIRED' else last_error_code end,
                           event_status = 'PROCESSING', owner = ?, lease_until = ?, next_retry_at = ?, updated_at = ?
                     where event_id = ?
                    """);
                    PreparedStatement read = connection.prepareStatement("""
                    select event_id, aggregate_type, aggregate_id, event_type, payload_json, retry_count, created_at
                      from outbox_event where event_id = ?
                    """)) {
                for (String id : ids) {
                    lease.setString(1, owner);
                    lease.setTimestamp(2, Timestamp.from(leaseUntil));
                    lease.setTimestamp(3, Timestamp.from(leaseUntil));
                    lease.setTimestamp(4, Timestamp.from(now));
                    lease.setString(5, id);
                    lease.executeUpdate();
                    read.setString(1, id);
                    try (ResultSet row = read.executeQuery()) {
                        claimed.addAll(read(row, owner, leaseUntil));
                    }
                }
            }
            return claimed;
        }

        /** As the claim: lock up to {@code batchSize} rows from a SKIP LOCKED cursor, then delete them by id. */
        @Override
        int purgeBatch(Connection connection, Instant deliveredBefore, int batchSize) throws SQLException {
            List<String> ids = new ArrayList<>();
            try (PreparedStatement purgeable = connection.prepareStatement(
                    "select event_id from outbox_event o where " + PURGEABLE + " for update skip locked")) {
                purgeable.setTimestamp(1, Timestamp.from(deliveredBefore));
                purgeable.setString(2, Outbox.ASSET_PUBLISH_REQUESTED);
                purgeable.setFetchSize(batchSize);
                try (ResultSet rows = purgeable.executeQuery()) {
                    while (ids.size() < batchSize && rows.next()) {
                        ids.add(rows.getString(1));
                    }
                }
            }
            int deleted = 0;
            try (PreparedStatement delete = connection.prepareStatement(
                    "delete from outbox_event where event_id = ? and event_status = 'PUBLISHED'")) {
                for (String id : ids) {
                    delete.setString(1, id);
                    deleted += delete.executeUpdate();
                }
            }
            return deleted;
        }
    };

    /**
     * A PUBLISHED event delivered before the cutoff (first parameter) that reconciliation no longer reads: anything but
     * a catalog publication (second parameter) of an application, or one with a newer PUBLISHED publication of the same
     * application. Each application's newest catalog publication stays: PublicationRule compares it with the catalog.
     */
    private static final String PURGEABLE = """
            o.event_status = 'PUBLISHED' and o.published_at < ?
            and (o.event_type <> ? or o.aggregate_type <> 'APPLICATION'
                 or exists (select 1 from outbox_event newer
                             where newer.aggregate_type = o.aggregate_type and newer.aggregate_id = o.aggregate_id
                               and newer.event_type = o.event_type and newer.event_status = 'PUBLISHED'
                               and (newer.created_at > o.created_at
                                    or (newer.created_at = o.created_at and newer.event_id > o.event_id))))""";

    abstract List<ClaimedEvent> claim(Connection connection, String owner, Instant now, Instant leaseUntil, int batchSize)
            throws SQLException;

    /** Deletes at most {@code batchSize} purgeable events, skipping rows another transaction holds; returns how many. */
    abstract int purgeBatch(Connection connection, Instant deliveredBefore, int batchSize) throws SQLException;

    static OutboxDialect of(DatabaseVendor vendor) {
        return vendor == DatabaseVendor.ORACLE ? ORACLE : POSTGRESQL;
    }

    private static List<ClaimedEvent> read(ResultSet rows, String owner, Instant leaseUntil) throws SQLException {
        List<ClaimedEvent> events = new ArrayList<>();
        while (rows.next()) {
            events.add(new ClaimedEvent(rows.getString(1), rows.getString(2), rows.getString(3), rows.getString(4),
                    rows.getString(5), rows.getInt(6), rows.getTimestamp(7).toInstant(), owner, leaseUntil));
        }
        return events;
    }
}
