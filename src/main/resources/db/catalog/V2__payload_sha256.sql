-- Issue 29: the SHA-256 (hex) of the body each publication was created from. A delivery that repeats an event id
-- with another body is refused (422) instead of being answered as a replay, and a lookup returns the hash so the
-- publisher's reconciliation can compare it with the outbox's payload. Null for publications made before this
-- column existed: nothing to compare them with.
ALTER TABLE published_asset ADD COLUMN payload_sha256 VARCHAR(64);
