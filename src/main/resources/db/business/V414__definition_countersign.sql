-- Issue 30: a definition's countersign step carries its policy (lockstep:policy, lockstep:ratio), approved with the
-- version by the second admin; an application of a registered type names its signers when it is created, and takes
-- the policy of the version it is submitted on. So a typed draft may hold signers before it holds a policy.
ALTER TABLE definition_version ADD COLUMN countersign_policy VARCHAR(16) CHECK (countersign_policy IN ('ALL', 'ONE_VETO', 'RATIO'));
ALTER TABLE definition_version ADD COLUMN countersign_ratio NUMERIC(3, 2) CHECK (countersign_ratio > 0 AND countersign_ratio <= 1);
ALTER TABLE definition_version ADD CONSTRAINT ck_definition_version_countersign CHECK (
    (countersign_policy IS NULL AND countersign_ratio IS NULL)
    OR (countersign_policy IS NOT NULL AND (countersign_policy = 'RATIO') = (countersign_ratio IS NOT NULL)));

ALTER TABLE application DROP CONSTRAINT ck_application_countersign;
ALTER TABLE application ADD CONSTRAINT ck_application_countersign CHECK (
    (countersign_policy IS NULL AND countersign_ratio IS NULL
        AND (countersign_signers IS NULL OR business_type <> 'APPLICATION'))
    OR (countersign_policy IS NOT NULL AND countersign_signers IS NOT NULL
        AND (countersign_policy = 'RATIO') = (countersign_ratio IS NOT NULL)));
