-- Oracle counterpart of db/business/V203__return_to_earlier_step.sql.
-- V1 left the decision check unnamed (a SYS_C... name): find it by its condition and drop it.
BEGIN
    FOR c IN (SELECT constraint_name FROM user_constraints
               WHERE table_name = 'APPROVAL_RECORD' AND constraint_type = 'C'
                 AND UPPER(search_condition_vc) LIKE 'DECISION IN%') LOOP
        EXECUTE IMMEDIATE 'ALTER TABLE approval_record DROP CONSTRAINT ' || c.constraint_name;
    END LOOP;
END;
/
ALTER TABLE approval_record ADD CONSTRAINT approval_record_decision_check
    CHECK (decision IN ('APPROVE', 'REJECT', 'RETURN'));
ALTER TABLE approval_record ADD (
    return_target VARCHAR2(128),
    return_mode   VARCHAR2(16) CHECK (return_mode IN ('RERUN', 'JUMP_BACK'))
);
ALTER TABLE approval_record ADD CONSTRAINT ck_approval_record_return CHECK (
    (decision = 'RETURN' AND return_target IS NOT NULL AND return_mode IS NOT NULL AND "comment" IS NOT NULL)
    OR (decision <> 'RETURN' AND return_target IS NULL AND return_mode IS NULL));
