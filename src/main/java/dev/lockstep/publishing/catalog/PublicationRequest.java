package dev.lockstep.publishing.catalog;

import java.time.Instant;

/** The body of a publish call: what the service's outbox event carries (its payload). */
record PublicationRequest(String eventId, Long applicationId, Long assetId, String title, Integer lifecycleNo,
        Instant approvedAt) {
}
