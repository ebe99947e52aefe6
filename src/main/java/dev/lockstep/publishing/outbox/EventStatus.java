package dev.lockstep.publishing.outbox;

/** The delivery state of one outbox event (the CHECK constraint of {@code outbox_event.event_status}). */
public enum EventStatus {
    /** Written with the approval, not yet tried. */
    PENDING,
    /** Claimed by a node ({@code owner}) until {@code lease_until}; an expired lease is claimable again. */
    PROCESSING,
    /** The catalog holds it: final. */
    PUBLISHED,
    /** The last attempt failed in a way worth repeating; due again at {@code next_retry_at}. */
    RETRY,
    /** A permanent error, the attempts used up, or an operator gave up: final until an operator retries it. */
    FAILED
}
