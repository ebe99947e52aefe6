-- Oracle counterpart of db/business/V401__outbox_retention_and_lag_indexes.sql. Oracle has no partial index: the status
-- leads both indexes, so the lag view's IN list and the purge's status are range scans of the matching entries only.
CREATE INDEX ix_outbox_unpublished ON outbox_event (event_status, retry_count, last_error_code, created_at, updated_at, next_retry_at);
CREATE INDEX ix_outbox_published ON outbox_event (event_status, published_at);
