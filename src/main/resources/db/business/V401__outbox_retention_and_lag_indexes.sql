-- Issue 29, item 11. The lag view (OutboxStore.LAG_QUERY) reads only events not yet delivered, with the predicate of
-- this index word for word: every column it groups or takes a minimum of is in the index, so a reading scans the
-- unpublished rows (index only) instead of the whole table, which keeps every published event until the purge.
CREATE INDEX ix_outbox_unpublished ON outbox_event (event_status, retry_count, last_error_code, created_at, updated_at, next_retry_at)
    WHERE event_status IN ('PENDING', 'PROCESSING', 'RETRY', 'FAILED');
-- the retention purge (OutboxRetention): published events, oldest delivery first
CREATE INDEX ix_outbox_published ON outbox_event (published_at) WHERE event_status = 'PUBLISHED';
