package dev.lockstep.reconciliation;

import dev.lockstep.reconciliation.Evidence.OutboxEvent;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The publishing repairs: put an event back in the publisher's queue, due now. Runs inside a repair's transaction,
 * which holds the application's and its events' row locks and has re-checked the evidence; each update is still
 * guarded by the row's status and {@code updated_at} as read, so it can only change the row the evidence described.
 * Sending an event again is safe: the catalog dedupes by event id.
 */
final class OutboxRequeue {

    private OutboxRequeue() {
    }

    /**
     * OUTBOX_STUCK: overdue PENDING/RETRY events become due now; an expired lease is dropped and the event is RETRY. The
     * error code says REQUEUED (the one before stays in the repair's before-image) until a publisher attempts it.
     */
    static String overdue(JdbcTemplate business, Evidence evidence, Instant now) {
        List<OutboxEvent> overdue = PublicationRule.overdue(evidence.publication());
        for (OutboxEvent event : overdue) {
            String status = event.status().equals("PROCESSING") ? "RETRY" : event.status();
            guarded(business.update("""
                    update outbox_event set event_status = ?, owner = null, lease_until = null, next_retry_at = ?,
                           last_error_code = ?, updated_at = ?
                     where event_id = ? and event_status = ? and updated_at = ?
                    """, status, Timestamp.from(now), PublicationRule.REQUEUED, Timestamp.from(now), event.eventId(),
                    event.status(),
                    Timestamp.from(event.updatedAt())), event);
        }
        // the application's publish status stays: PENDING for a PENDING event, PUBLISHING for a RETRY or leased one
        return "re-queued outbox event(s) " + overdue.stream().map(e -> e.eventId() + " " + e.status()).toList() + " due at " + now;
    }

    /**
     * PUBLISHED_NOT_IN_CATALOG: the events the catalog said it never applied go back to PENDING with fresh attempts, the
     * application's publish status back to PENDING with them.
     */
    static String absentFromCatalog(JdbcTemplate business, Evidence evidence, Instant now) {
        List<OutboxEvent> absent = PublicationRule.absentFromCatalog(evidence.publication());
        for (OutboxEvent event : absent) {
            guarded(business.update("""
                    update outbox_event set event_status = 'PENDING', retry_count = 0, next_retry_at = ?, published_at = null,
                           owner = null, lease_until = null, last_error_code = 'NOT_IN_CATALOG', updated_at = ?
                     where event_id = ? and event_status = 'PUBLISHED' and updated_at = ?
                    """, Timestamp.from(now), Timestamp.from(now), event.eventId(), Timestamp.from(event.updatedAt())), event);
        }
        business.update("""
                update application set publish_status = 'PENDING', row_version = row_version + 1, updated_at = ?
                 where id = ? and publish_status = 'PUBLISHED'
                """, Timestamp.from(now), evidence.applicationId());
        return "re-queued outbox event(s) " + absent.stream().map(OutboxEvent::eventId).toList()
                + " the catalog has not applied (PUBLISHED -> PENDING); application publish status PENDING";
    }

    /** Under the locks the evidence cannot have moved; if a row still did not match, roll the whole repair back. */
    private static void guarded(int updated, OutboxEvent event) {
        if (updated != 1) {
            throw new IllegalStateException("outbox event " + event.eventId() + " changed under the repair's lock");
        }
    }
}
