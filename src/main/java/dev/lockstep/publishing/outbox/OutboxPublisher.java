package dev.lockstep.publishing.outbox;

import dev.lockstep.publishing.delivery.CatalogClient;
import dev.lockstep.publishing.delivery.CatalogClient.Lookup;
import dev.lockstep.publishing.delivery.PayloadDigest;
import dev.lockstep.publishing.outbox.OutboxStore.Mark;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers due outbox events at least once, routed by type (asset publications to the catalog, deadline
 * notifications to the {@link NotificationLog}): claim a batch in a short local
 * transaction (the lease), call the catalog after that commit, record each outcome in another short
 * transaction fenced by the lease. A node that dies anywhere in between leaves a lease that expires,
 * and any node sends the event again under the same event id, which the catalog's inbox dedupes.
 * Several nodes run this side by side; each event is worked on by one of them at a time.
 */
public class OutboxPublisher {

    private static final Logger log = LoggerFactory.getLogger(OutboxPublisher.class);

    private final OutboxStore store;
    private final CatalogClient catalog;
    private final PublishProperties settings;
    private final String owner;
    private final Clock clock;
    private final PublishMetrics metrics;
    private final NotificationLog notifications = new NotificationLog();

    OutboxPublisher(OutboxStore store, CatalogClient catalog, PublishProperties settings, String owner, Clock clock,
            MeterRegistry meters) {
        this.store = store;
        this.catalog = catalog;
        this.settings = settings;
        this.owner = owner;
        this.clock = clock;
        this.metrics = new PublishMetrics(meters);
    }

    /** One poll: claims up to a batch of due events and attempts each once. Returns how many it claimed. */
    public int publishDue() {
        Instant now = now();
        List<ClaimedEvent> claimed = store.claim(owner, now, now.plus(settings.lease()), settings.batchSize());
        for (int i = 0; i < claimed.size(); i++) {
            // issue 29: a slow catalog can use up the lease before the tail of the batch; what is no longer ours is
            // not sent (another node may be sending it) and what is unsent goes back without an attempt counted
            if (!store.stillHeld(claimed.get(i), now())) {
                List<ClaimedEvent> unsent = claimed.subList(i, claimed.size());
                int released = store.release(unsent, now());
                log.info("publishing: the lease of this batch ran out or was taken over before event {}; {} unsent"
                        + " event(s) not sent, {} handed back without an attempt (raise lockstep.publish.lease or lower"
                        + " batch-size for this catalog)", claimed.get(i).eventId(), unsent.size(), released);
                break;
            }
            attempt(claimed.get(i));
        }
        return claimed.size();
    }

    private void attempt(ClaimedEvent event) {
        Mark mark;
        try {
            mark = deliver(event);
        } catch (InterruptedException e) {
            // shutting down: the lease expires and another attempt (here or elsewhere) takes over
            Thread.currentThread().interrupt();
            return;
        } catch (RuntimeException e) {
            // one bad event must not stop the batch: it is retried with backoff like any failure
            log.warn("outbox event {}: delivery failed unexpectedly", event.eventId(), e);
            mark = retryOrFail(event, "PUBLISHER_ERROR", e.toString());
        }
        Instant now = now();
        if (!store.finish(event, mark, now)) {
            log.info("outbox event {}: lease lost to another node before the outcome {} was recorded", event.eventId(),
                    mark.status());
            return;
        }
        metrics.attempt(mark.status());
        if (mark.status() == EventStatus.PUBLISHED) {
            metrics.published(Duration.between(event.createdAt(), now));
        } else if (mark.status() == EventStatus.FAILED) {
            log.warn("outbox event {} ({} {}) FAILED: {} {}", event.eventId(), event.aggregateType(), event.aggregateId(),
                    mark.errorCode(), mark.errorDetail());
        }
    }

    private Mark deliver(ClaimedEvent event) throws InterruptedException {
        if (Outbox.DEADLINE_NOTIFICATION.equals(event.eventType())) {
            // routed by type: a notification never goes to the catalog
            return notifications.deliver(event);
        }
        if (!Outbox.ASSET_PUBLISH_REQUESTED.equals(event.eventType())) {
            return new Mark(EventStatus.FAILED, "UNSUPPORTED_EVENT_TYPE", "no target for event type " + event.eventType(), null);
        }
        // what the catalog must hold for this event: a publication of another payload under its id is no success
        String payloadSha256 = PayloadDigest.sha256(event.payloadJson());
        int status;
        try {
            status = catalog.publish(event.eventId(), event.payloadJson());
        } catch (CatalogClient.NoAnswer e) {
            // No answer: the catalog may have applied it anyway. Ask before sending a create again (seed 000, section 35).
            String code = e.timedOut() ? "CATALOG_TIMEOUT" : "CATALOG_UNREACHABLE";
            return switch (catalog.lookup(event.eventId(), payloadSha256)) {
                case APPLIED -> Mark.published();
                case OTHER_PAYLOAD -> otherPayload(event);
                case NOT_APPLIED, UNKNOWN -> retryOrFail(event, code, e.toString());
            };
        }
        if (status >= 200 && status < 300) {
            return Mark.published();
        }
        if (status == 422 && catalog.lookup(event.eventId(), payloadSha256) == Lookup.OTHER_PAYLOAD) {
            return otherPayload(event);
        }
        if (status >= 500 || status == 408 || status == 409 || status == 429) {
            return retryOrFail(event, "HTTP_" + status, "the catalog answered " + status);
        }
        return new Mark(EventStatus.FAILED, "HTTP_" + status, "the catalog refused the event with " + status
                + "; a permanent error: fix the cause, then retry it as an operator", null);
    }

    /** The catalog holds another payload under this event id: never a success, and repeating cannot help. */
    private static Mark otherPayload(ClaimedEvent event) {
        return new Mark(EventStatus.FAILED, "CATALOG_PAYLOAD_MISMATCH", "the catalog holds a publication of event "
                + event.eventId() + " made from another payload (a forgery, or a tampered catalog): investigate before any retry",
                null);
    }

    private Mark retryOrFail(ClaimedEvent event, String code, String detail) {
        int attempts = event.retryCount() + 1;
        if (attempts >= settings.maxAttempts()) {
            return new Mark(EventStatus.FAILED, code, detail + " (attempt " + attempts + " of lockstep.publish.max-attempts="
                    + settings.maxAttempts() + ")", null);
        }
        return new Mark(EventStatus.RETRY, code, detail, now().plus(backoff(attempts)));
    }

    /** Exponential backoff with jitter: a random point in the upper half of initial * 2^(attempt-1), capped. */
    Duration backoff(int attempt) {
        long initial = settings.backoffInitial().toMillis();
        long max = settings.backoffMax().toMillis();
        long exponential = attempt >= 31 ? max : Math.min(max, initial * (1L << (attempt - 1)));
        return Duration.ofMillis(ThreadLocalRandom.current().nextLong(exponential / 2, exponential + 1));
    }

    private Instant now() {
        // PostgreSQL and Oracle keep microseconds: the lease is compared with exactly what was stored
        return clock.instant().truncatedTo(ChronoUnit.MICROS);
    }
}
