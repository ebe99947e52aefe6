package dev.lockstep.reconciliation;

import static dev.lockstep.reconciliation.Classification.INCIDENT;
import static dev.lockstep.reconciliation.Classification.REPAIRABLE;

import dev.lockstep.publishing.delivery.CatalogClient.Lookup;
import dev.lockstep.reconciliation.Evidence.OutboxEvent;
import dev.lockstep.reconciliation.Evidence.Publication;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The rules of seed 000 section 29 over an application's publishing: its catalog publications (outbox events of type
 * {@code ASSET_PUBLISH_REQUESTED} only: a deadline notification is never sent to the catalog, so the catalog's 404 for
 * it proves nothing) and, for a PUBLISHED application, what the catalog said about them. The only repair is a re-queue (the catalog dedupes by event id, so
 * sending an event again is safe); a permanent failure or a publish status no event explains is for people.
 * docs/reconciliation.md describes each rule.
 */
public enum PublicationRule implements ReconciliationRule {

    /**
     * An event the publisher should have finished long ago: due (PENDING, RETRY) or leased (PROCESSING) and left past
     * the outbox SLA is re-queued; a FAILED one is a permanent failure, never retried automatically. An operator's
     * recorded give-up ({@link #GIVEN_UP}) is a decision, not a difference.
     */
    OUTBOX_STUCK(evidence -> {
        Publication publication = evidence.publication();
        List<OutboxEvent> failed = publication.events().stream()
                .filter(event -> event.status().equals("FAILED") && !PublicationRule.GIVEN_UP.equals(event.lastErrorCode())).toList();
        if (!failed.isEmpty()) {
            return new Verdict(INCIDENT, "outbox event(s) FAILED: " + describe(failed));
        }
        List<OutboxEvent> overdue = overdue(publication);
        List<OutboxEvent> againAfterRequeue = overdue.stream().filter(event -> PublicationRule.REQUEUED.equals(event.lastErrorCode())).toList();
        if (!againAfterRequeue.isEmpty()) {
            // a re-queue no publisher acted on would only be repeated every SLA: no node publishes, people must look
            return new Verdict(INCIDENT, "outbox event(s) re-queued by reconciliation and still untouched by any publisher past"
                    + " the outbox SLA (is publishing running: lockstep.publish.enabled, poll-interval, catalog-url?): "
                    + describe(againAfterRequeue));
        }
        return overdue.isEmpty() ? null
                : new Verdict(REPAIRABLE, "outbox event(s) not delivered more than the outbox SLA after they were due: "
                        + describe(overdue));
    }),

    /**
     * PUBLISHED, and the catalog answered that it has applied no such event: re-queue the event. A catalog that did not
     * answer (down, slow, error) proves nothing and yields no finding; a PUBLISHED status without a published event
     * has nothing to re-queue.
     */
    PUBLISHED_NOT_IN_CATALOG(evidence -> {
        Publication publication = evidence.publication();
        if (!"PUBLISHED".equals(publication.status())) {
            return null;
        }
        if (published(publication).isEmpty()) {
            return new Verdict(INCIDENT, "publish status is PUBLISHED but no outbox event of the application is PUBLISHED: "
                    + describe(publication.events()));
        }
        List<OutboxEvent> absent = absentFromCatalog(publication);
        return absent.isEmpty() ? null
                : new Verdict(REPAIRABLE, "the catalog has applied no event " + absent.stream().map(OutboxEvent::eventId).toList()
                        + " though the outbox marks it PUBLISHED");
    }),

    /**
     * PUBLISHED, and the catalog holds a publication of the event made from another payload than the outbox's (the
     * hashes differ): a forgery under a real event id, or a catalog changed behind the publisher's back. Never
     * repaired: re-sending cannot replace what the catalog holds, and which side is right is for people to decide.
     */
    PUBLISHED_PAYLOAD_MISMATCH(evidence -> {
        Publication publication = evidence.publication();
        List<OutboxEvent> other = published(publication).stream()
                .filter(event -> publication.catalog().get(event.eventId()) == Lookup.OTHER_PAYLOAD).toList();
        return other.isEmpty() ? null
                : new Verdict(INCIDENT, "the catalog holds event(s) " + other.stream().map(OutboxEvent::eventId).toList()
                        + " with a payload hash other than the outbox's: not the publication that was approved");
    });

    /** {@code outbox_event.last_error_code} of an operator's give-up (publish/OutboxOperations). */
    static final String GIVEN_UP = "GIVEN_UP";
    /** {@code outbox_event.last_error_code} of a re-queue by {@link #OUTBOX_STUCK}; a publisher's next attempt overwrites it. */
    static final String REQUEUED = "REQUEUED";

    private final Function<Evidence, Verdict> check;

    PublicationRule(Function<Evidence, Verdict> check) {
        this.check = check;
    }

    @Override
    public String id() {
        return name();
    }

    @Override
    public Optional<Finding> check(Evidence evidence) {
        return Optional.ofNullable(check.apply(evidence)).map(verdict -> new Finding(id(), verdict.classification(),
                verdict.difference(), evidence.processInstanceId(), evidence.processDefinitionId()));
    }

    /** Due or leased events left past the SLA, whose re-queue the outbox stuck repair writes. */
    static List<OutboxEvent> overdue(Publication publication) {
        return publication.events().stream().filter(event -> switch (event.status()) {
            case "PENDING", "RETRY" -> event.nextRetryAt().isBefore(publication.overdueBefore());
            case "PROCESSING" -> event.leaseUntil() != null && event.leaseUntil().isBefore(publication.overdueBefore());
            default -> false;
        }).toList();
    }

    /** PUBLISHED events the catalog said it never applied. */
    static List<OutboxEvent> absentFromCatalog(Publication publication) {
        return published(publication).stream()
                .filter(event -> publication.catalog().get(event.eventId()) == Lookup.NOT_APPLIED).toList();
    }

    static List<OutboxEvent> published(Publication publication) {
        return publication.events().stream().filter(event -> event.status().equals("PUBLISHED")).toList();
    }

    private record Verdict(Classification classification, String difference) {
    }

    private static String describe(List<OutboxEvent> events) {
        return events.stream().map(event -> event.eventId() + " " + event.status() + " (attempts " + event.retryCount()
                + (event.lastErrorCode() == null ? "" : ", last error " + event.lastErrorCode()) + ")").toList().toString();
    }
}
