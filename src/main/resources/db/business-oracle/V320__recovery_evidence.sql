-- Oracle counterpart of db/business/V320__recovery_evidence.sql. The status and outcome checks of V100
-- were created without names: they are found in the dictionary by their condition and replaced.

BEGIN
    FOR c IN (SELECT table_name, constraint_name FROM user_constraints
              WHERE constraint_type = 'C'
                AND ((table_name = 'RECOVERY_RESOLUTION' AND UPPER(search_condition_vc) LIKE 'STATUS IN%')
                  OR (table_name = 'RECOVERY_INTENT' AND UPPER(search_condition_vc) LIKE 'STATUS IN%')
                  OR (table_name = 'RECOVERY_BRANCH_OUTCOME' AND UPPER(search_condition_vc) LIKE 'OUTCOME IN%'))) LOOP
        EXECUTE IMMEDIATE 'ALTER TABLE ' || c.table_name || ' DROP CONSTRAINT ' || c.constraint_name;
    END LOOP;
END;
/

ALTER TABLE recovery_resolution ADD CONSTRAINT ck_recovery_resolution_status
    CHECK (status IN ('PROPOSED', 'APPROVED', 'EXECUTING', 'EXECUTED', 'FAILED'));
ALTER TABLE recovery_resolution ADD (attempts NUMBER(10) DEFAULT 0 NOT NULL);

ALTER TABLE recovery_branch_outcome ADD (
    attempt     NUMBER(10) DEFAULT 1 NOT NULL,
    intended    VARCHAR2(16) CHECK (intended IN ('COMMIT', 'ROLLBACK')),
    started_at  TIMESTAMP WITH TIME ZONE,
    detail      VARCHAR2(2000)
);
ALTER TABLE recovery_branch_outcome MODIFY (outcome NULL, ended_at NULL);
ALTER TABLE recovery_branch_outcome ADD CONSTRAINT ck_recovery_branch_outcome_outcome
    CHECK (outcome IN ('COMMITTED', 'ROLLED_BACK', 'ALREADY_GONE', 'FAILED', 'INTERRUPTED'));
CREATE INDEX ix_recovery_branch_outcome_resolution ON recovery_branch_outcome (resolution_id);

ALTER TABLE recovery_intent ADD CONSTRAINT ck_recovery_intent_status
    CHECK (status IN ('PREPARING', 'COMMITTED', 'ROLLED_BACK', 'HEURISTIC'));
CREATE INDEX ix_recovery_intent_request ON recovery_intent (request_id);
