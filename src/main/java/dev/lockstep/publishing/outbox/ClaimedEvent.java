package dev.lockstep.publishing.outbox;

import java.time.Instant;

/**
 * An event this node holds the lease on. {@code owner} and {@code leaseUntil} fence every later mark:
 * a node whose lease expired and was taken over finds its mark refused instead of overwriting.
 */
record ClaimedEvent(String eventId, String aggregateType, String aggregateId, String eventType, String payloadJson,
        int retryCount, Instant createdAt, String owner, Instant leaseUntil) {
}
