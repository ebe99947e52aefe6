package dev.lockstep.catalog;

import java.time.Instant;

/** One published asset as the catalog holds it, keyed by the event that published it. */
public record Publication(String eventId, long assetId, long applicationId, int lifecycleNo, String title,
        Instant approvedAt, Instant publishedAt) {
}
