-- Publishing (package dev.lockstep.publish; seed 000, sections 11-14): one row per event to deliver,
-- written in the same XA transaction as the final approval, delivered afterwards by the publisher.
-- PENDING -> PROCESSING(owner, lease_until) -> PUBLISHED | RETRY(next_retry_at) | FAILED.
CREATE TABLE outbox_event (
    event_id          VARCHAR(64)   PRIMARY KEY,
    aggregate_type    VARCHAR(64)   NOT NULL,
    aggregate_id      VARCHAR(64)   NOT NULL,
    event_type        VARCHAR(128)  NOT NULL,
    -- only what the catalog needs; never credentials or the applicant's free text
    payload_json      TEXT          NOT NULL,
    event_status      VARCHAR(32)   NOT NULL
        CHECK (event_status IN ('PENDING', 'PROCESSING', 'PUBLISHED', 'RETRY', 'FAILED')),
    -- the tm unique name of the node holding the lease, and until when
    owner             VARCHAR(40),
    lease_until       TIMESTAMPTZ,
    -- delivery attempts made so far
    retry_count       INT           NOT NULL DEFAULT 0,
    -- when the event is due: creation for PENDING, the backoff for RETRY, the lease end for PROCESSING
    next_retry_at     TIMESTAMPTZ   NOT NULL,
    last_error_code   VARCHAR(128),
    last_error_detail VARCHAR(1000),
    created_at        TIMESTAMPTZ   NOT NULL,
    updated_at        TIMESTAMPTZ   NOT NULL,
    published_at      TIMESTAMPTZ,
    CONSTRAINT ck_outbox_lease CHECK (event_status <> 'PROCESSING' OR (owner IS NOT NULL AND lease_until IS NOT NULL))
);
-- the claim: due events oldest first; finished events stay out of the index
CREATE INDEX ix_outbox_due ON outbox_event (next_retry_at)
    WHERE event_status IN ('PENDING', 'RETRY', 'PROCESSING');
-- operators: by status and type, oldest first
CREATE INDEX ix_outbox_status ON outbox_event (event_status, event_type, created_at);
CREATE INDEX ix_outbox_aggregate ON outbox_event (aggregate_type, aggregate_id);
