-- Multi-instance countersign (会签) chosen per application at creation: who signs and by which policy.
ALTER TABLE application
    ADD COLUMN countersign_policy  VARCHAR(16) CHECK (countersign_policy IN ('ALL', 'ONE_VETO', 'RATIO')),
    ADD COLUMN countersign_ratio   NUMERIC(3, 2) CHECK (countersign_ratio > 0 AND countersign_ratio <= 1),
    ADD COLUMN countersign_signers VARCHAR(1000),
    ADD CONSTRAINT ck_application_countersign CHECK (
        (countersign_policy IS NULL AND countersign_signers IS NULL AND countersign_ratio IS NULL)
        OR (countersign_policy IS NOT NULL AND countersign_signers IS NOT NULL
            AND (countersign_policy = 'RATIO') = (countersign_ratio IS NOT NULL)));
