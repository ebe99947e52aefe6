package dev.lockstep.publishing.outbox;

import dev.lockstep.platform.web.ApiException;
import dev.lockstep.publishing.outbox.OutboxStore.EventRow;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Set;

/**
 * Operators' repairs of one event. Each change, the application's publish status and the audit entry
 * commit in one local transaction of the business database: no repair without its record.
 */
class OutboxOperations {

    private final OutboxStore store;
    private final Clock clock;

    OutboxOperations(OutboxStore store, Clock clock) {
        this.store = store;
        this.clock = clock;
    }

    /** Due now; a FAILED event gets a fresh set of attempts. */
    EventRow retry(String eventId, String reason, String actor) {
        return change(eventId, Set.of(EventStatus.FAILED, EventStatus.RETRY), EventStatus.RETRY, "OUTBOX_RETRY", reason, actor);
    }

    /** Final: the event is not delivered; the application shows publishStatus FAILED. */
    EventRow giveUp(String eventId, String reason, String actor) {
        return change(eventId, Set.of(EventStatus.PENDING, EventStatus.RETRY), EventStatus.FAILED, "OUTBOX_GIVE_UP", reason, actor);
    }

    private EventRow change(String eventId, Set<EventStatus> from, EventStatus to, String action, String reason, String actor) {
        Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
        return store.inTransaction(connection -> {
            EventRow event = store.find(connection, eventId, true).orElseThrow(() -> ApiException.notFound(
                    "OUTBOX_EVENT_NOT_FOUND", "There is no outbox event " + eventId + "."));
            EventStatus current = EventStatus.valueOf(event.status());
            if (!from.contains(current)) {
                throw ApiException.conflict("OUTBOX_EVENT_STATE", "Event " + eventId + " is " + current + "; "
                        + action + " applies only to " + from + (current == EventStatus.PROCESSING
                        ? ". A node holds its lease until " + event.leaseUntil() + "; try again after that." : "."));
            }
            boolean freshAttempts = current == EventStatus.FAILED;
            String errorCode = to == EventStatus.FAILED ? "GIVEN_UP" : event.lastErrorCode();
            store.operatorMark(connection, event, to, freshAttempts, errorCode,
                    to == EventStatus.FAILED ? "FAILED" : "PENDING", now);
            store.audit(connection, now, actor, action, event.aggregateId(), "outbox event " + eventId + " ("
                    + event.eventType() + " " + event.aggregateType() + " " + event.aggregateId() + ") " + current + " -> " + to
                    + (freshAttempts ? ", attempts reset" : "") + ": " + reason);
            return store.find(connection, eventId, false).orElseThrow();
        });
    }
}
