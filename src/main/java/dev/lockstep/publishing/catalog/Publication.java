package dev.lockstep.publishing.catalog;

import java.time.Instant;

/**
 * One published asset as the catalog holds it, keyed by the event that published it; {@code payloadSha256} is the hash
 * of the body it was created from (null for a publication older than the hash).
 */
public record Publication(String eventId, long assetId, long applicationId, int lifecycleNo, String title,
        Instant approvedAt, Instant publishedAt, String payloadSha256) {
}
