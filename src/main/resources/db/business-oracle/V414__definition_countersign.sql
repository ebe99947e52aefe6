-- Oracle counterpart of db/business/V414__definition_countersign.sql.
ALTER TABLE definition_version ADD (
    countersign_policy VARCHAR2(16) CHECK (countersign_policy IN ('ALL', 'ONE_VETO', 'RATIO')),
    countersign_ratio  NUMBER(3, 2) CHECK (countersign_ratio > 0 AND countersign_ratio <= 1)
);
ALTER TABLE definition_version ADD CONSTRAINT ck_definition_version_countersign CHECK (
    (countersign_policy IS NULL AND countersign_ratio IS NULL)
    OR (countersign_policy IS NOT NULL
        AND ((countersign_policy = 'RATIO' AND countersign_ratio IS NOT NULL)
             OR (countersign_policy <> 'RATIO' AND countersign_ratio IS NULL))));

ALTER TABLE application DROP CONSTRAINT ck_application_countersign;
ALTER TABLE application ADD CONSTRAINT ck_application_countersign CHECK (
    (countersign_policy IS NULL AND countersign_ratio IS NULL
        AND (countersign_signers IS NULL OR business_type <> 'APPLICATION'))
    OR (countersign_policy IS NOT NULL AND countersign_signers IS NOT NULL
        AND ((countersign_policy = 'RATIO' AND countersign_ratio IS NOT NULL)
             OR (countersign_policy <> 'RATIO' AND countersign_ratio IS NULL))));
