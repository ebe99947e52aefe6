package dev.lockstep.publishing.outbox;

import dev.lockstep.platform.AreaApi;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;
import tools.jackson.databind.json.JsonMapper;

/**
 * Records the intent to publish in the caller's transaction (seed 000, section 11): the event row
 * commits or rolls back together with the approval that caused it. Nothing is sent from here; the
 * {@link OutboxPublisher} delivers it after the commit, outside any XA transaction.
 */
@Component
@AreaApi
public class Outbox {

    public static final String ASSET_PUBLISH_REQUESTED = "ASSET_PUBLISH_REQUESTED";
    /** For a mail/chat gateway, never for the catalog: a step deadline reminded or escalated, or ended a run. */
    public static final String DEADLINE_NOTIFICATION = "DEADLINE_NOTIFICATION";

    private final JsonMapper json = JsonMapper.builder().build();
    private final ApplicationEventPublisher events;

    // persist, not a repository's save: the id is assigned here, and save would read the row first to merge
    @PersistenceContext
    private EntityManager entityManager;

    Outbox(ApplicationEventPublisher events) {
        this.events = events;
    }

    /** The asset of an approved application is to be published; returns the event id (the catalog's idempotency key). */
    @Transactional(propagation = Propagation.MANDATORY)
    public String requestAssetPublication(AssetPublication publication, Instant now) {
        String eventId = UUID.randomUUID().toString();
        Map<String, Object> payload = new LinkedHashMap<>();
        payload.put("eventId", eventId);
        payload.put("applicationId", publication.applicationId());
        payload.put("assetId", publication.assetId());
        payload.put("title", publication.title());
        payload.put("lifecycleNo", publication.lifecycleNo());
        payload.put("approvedAt", now.toString());
        entityManager.persist(OutboxEvent.pending(eventId, publication.aggregateType(), Long.toString(publication.applicationId()),
                ASSET_PUBLISH_REQUESTED, json.writeValueAsString(payload), now));
        events.publishEvent(new EventWritten(eventId));
        return eventId;
    }

    /** An event row was written in the current transaction; this node's publisher looks for it once that commits. */
    record EventWritten(String eventId) {
    }

    /**
     * A step deadline fired: who is to be told (the step's candidates, or the escalation group) about which
     * application and step. Identifiers only, never the application's free text. Returns the event id.
     */
    @Transactional(propagation = Propagation.MANDATORY)
    public String notifyDeadline(DeadlineNotification notification, Instant now) {
        String eventId = UUID.randomUUID().toString();
        Map<String, Object> payload = new LinkedHashMap<>();
        payload.put("eventId", eventId);
        payload.put("kind", notification.kind());
        payload.put("applicationId", notification.applicationId());
        payload.put("lifecycleNo", notification.lifecycleNo());
        payload.put("step", notification.step());
        payload.put("taskIds", notification.taskIds());
        payload.put("recipientGroups", notification.recipientGroups());
        payload.put("recipientUsers", notification.recipientUsers());
        payload.put("occurredAt", now.toString());
        entityManager.persist(OutboxEvent.pending(eventId, notification.aggregateType(),
                Long.toString(notification.applicationId()), DEADLINE_NOTIFICATION, json.writeValueAsString(payload), now));
        return eventId;
    }

    /** {@code kind}: what fired (REMINDED, ESCALATED, OVERDUE_REJECTED, OVERDUE_RETURNED). */
    public record DeadlineNotification(String aggregateType, long applicationId, int lifecycleNo, String kind, String step,
            List<String> taskIds, List<String> recipientGroups, List<String> recipientUsers) {
    }

    /**
     * What the catalog is told about an approved application: identifiers and the title, never the
     * description, amount or anything a caller could not see in the catalog anyway.
     */
    public record AssetPublication(String aggregateType, long applicationId, long assetId, String title, int lifecycleNo) {
    }
}
