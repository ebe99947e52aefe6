package dev.lockstep.publishing.outbox;

import dev.lockstep.publishing.outbox.OutboxStore.Mark;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where deadline notifications go until a mail or chat gateway is wired in: one log line per event on
 * the logger {@code lockstep.notifications}, with the event id a gateway would dedupe on and the payload
 * (identifiers and recipients only). Delivered after the commit like every outbox event, never inside
 * the XA transaction that fired the deadline.
 */
class NotificationLog {

    private static final Logger log = LoggerFactory.getLogger("lockstep.notifications");

    Mark deliver(ClaimedEvent event) {
        log.info("notification {} for {} {}: {}", event.eventId(), event.aggregateType(), event.aggregateId(), event.payloadJson());
        return Mark.published();
    }
}
