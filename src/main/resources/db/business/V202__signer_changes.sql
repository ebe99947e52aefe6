-- 加签/减签 are recorded next to delegations and transfers: who added or removed which signer, and why.
ALTER TABLE task_handover DROP CONSTRAINT task_handover_kind_check;
ALTER TABLE task_handover ADD CONSTRAINT task_handover_kind_check
    CHECK (kind IN ('DELEGATE', 'RESOLVE', 'TRANSFER', 'ADD_SIGNER', 'REMOVE_SIGNER'));
-- a removed signer hands the task to nobody
ALTER TABLE task_handover ALTER COLUMN to_user DROP NOT NULL;
