-- Oracle counterpart of db/business/V300__outbox_event.sql.
CREATE TABLE outbox_event (
    event_id          VARCHAR2(64)             PRIMARY KEY,
    aggregate_type    VARCHAR2(64)             NOT NULL,
    aggregate_id      VARCHAR2(64)             NOT NULL,
    event_type        VARCHAR2(128)            NOT NULL,
    payload_json      CLOB                     NOT NULL,
    event_status      VARCHAR2(32)             NOT NULL
        CHECK (event_status IN ('PENDING', 'PROCESSING', 'PUBLISHED', 'RETRY', 'FAILED')),
    owner             VARCHAR2(40),
    lease_until       TIMESTAMP WITH TIME ZONE,
    retry_count       NUMBER(10)               DEFAULT 0 NOT NULL,
    next_retry_at     TIMESTAMP WITH TIME ZONE NOT NULL,
    last_error_code   VARCHAR2(128),
    last_error_detail VARCHAR2(1000),
    created_at        TIMESTAMP WITH TIME ZONE NOT NULL,
    updated_at        TIMESTAMP WITH TIME ZONE NOT NULL,
    published_at      TIMESTAMP WITH TIME ZONE,
    CONSTRAINT ck_outbox_lease CHECK (event_status <> 'PROCESSING' OR (owner IS NOT NULL AND lease_until IS NOT NULL))
);
-- Oracle has no partial index; finished rows stay in this one.
CREATE INDEX ix_outbox_due ON outbox_event (event_status, next_retry_at);
CREATE INDEX ix_outbox_status ON outbox_event (event_status, event_type, created_at);
CREATE INDEX ix_outbox_aggregate ON outbox_event (aggregate_type, aggregate_id);
