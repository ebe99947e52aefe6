-- Honest evidence in the recovery monitor (docs/runbook-in-doubt.md).

-- EXECUTING: the resolution's branch statements have started; its recovery_branch_outcome rows say which
-- branch was about to be ended how, and which outcome was recorded. attempts counts executions, so two
-- DBAs re-running an interrupted one cannot both claim it.
ALTER TABLE recovery_resolution DROP CONSTRAINT recovery_resolution_status_check;
ALTER TABLE recovery_resolution ADD CONSTRAINT ck_recovery_resolution_status
    CHECK (status IN ('PROPOSED', 'APPROVED', 'EXECUTING', 'EXECUTED', 'FAILED'));
ALTER TABLE recovery_resolution ADD COLUMN attempts INT NOT NULL DEFAULT 0;

-- One row per attempt to end a branch: written with the intended action (and no outcome) before
-- COMMIT/ROLLBACK PREPARED runs, completed after it. A row without an outcome is an attempt whose node
-- stopped in between; INTERRUPTED is what a later attempt writes over it.
ALTER TABLE recovery_branch_outcome ADD COLUMN attempt INT NOT NULL DEFAULT 1;
ALTER TABLE recovery_branch_outcome ADD COLUMN intended VARCHAR(16) CHECK (intended IN ('COMMIT', 'ROLLBACK'));
ALTER TABLE recovery_branch_outcome ADD COLUMN started_at TIMESTAMPTZ;
ALTER TABLE recovery_branch_outcome ADD COLUMN detail VARCHAR(2000);
ALTER TABLE recovery_branch_outcome ALTER COLUMN outcome DROP NOT NULL;
ALTER TABLE recovery_branch_outcome ALTER COLUMN ended_at DROP NOT NULL;
ALTER TABLE recovery_branch_outcome DROP CONSTRAINT recovery_branch_outcome_outcome_check;
ALTER TABLE recovery_branch_outcome ADD CONSTRAINT ck_recovery_branch_outcome_outcome
    CHECK (outcome IN ('COMMITTED', 'ROLLED_BACK', 'ALREADY_GONE', 'FAILED', 'INTERRUPTED'));
CREATE INDEX ix_recovery_branch_outcome_resolution ON recovery_branch_outcome (resolution_id);

-- HEURISTIC: Atomikos reported a heuristic outcome for the transaction (recovery_heuristic_event has
-- which); its Idempotency-Key is not replayed as a success.
ALTER TABLE recovery_intent DROP CONSTRAINT recovery_intent_status_check;
ALTER TABLE recovery_intent ADD CONSTRAINT ck_recovery_intent_status
    CHECK (status IN ('PREPARING', 'COMMITTED', 'ROLLED_BACK', 'HEURISTIC'));
CREATE INDEX ix_recovery_intent_request ON recovery_intent (request_id);
