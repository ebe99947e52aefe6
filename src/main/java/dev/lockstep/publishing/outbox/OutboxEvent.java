package dev.lockstep.publishing.outbox;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/**
 * An event row as the use case writes it: PENDING and due at once. Everything after that (claims,
 * marks) is the publisher's, in plain SQL on its own local connections ({@link OutboxStore}).
 */
@Entity
@Table(name = "outbox_event")
class OutboxEvent {

    @Id
    private String eventId;
    private String aggregateType;
    private String aggregateId;
    private String eventType;
    @Column(name = "payload_json")
    private String payloadJson;
    private String eventStatus;
    private int retryCount;
    private Instant nextRetryAt;
    private Instant createdAt;
    private Instant updatedAt;

    protected OutboxEvent() {
    }

    static OutboxEvent pending(String eventId, String aggregateType, String aggregateId, String eventType, String payloadJson,
            Instant now) {
        OutboxEvent event = new OutboxEvent();
        event.eventId = eventId;
        event.aggregateType = aggregateType;
        event.aggregateId = aggregateId;
        event.eventType = eventType;
        event.payloadJson = payloadJson;
        event.eventStatus = EventStatus.PENDING.name();
        event.retryCount = 0;
        event.nextRetryAt = now;
        event.createdAt = now;
        event.updatedAt = now;
        return event;
    }

    String getEventId() {
        return eventId;
    }
}
