package dev.lockstep.approval;

/**
 * The publishing state machine, separate from approval: an approved application is not yet a
 * published one. APPROVED moves it to PENDING (the intent to publish); the publisher owns the rest.
 */
public enum PublishStatus {
    NOT_STARTED, PENDING, PUBLISHING, PUBLISHED, FAILED
}
