-- 任意节点驳回 is recorded as a decision: RETURN, with the reason as its comment, the step it went back to and the mode.
ALTER TABLE approval_record DROP CONSTRAINT approval_record_decision_check;
ALTER TABLE approval_record ADD CONSTRAINT approval_record_decision_check
    CHECK (decision IN ('APPROVE', 'REJECT', 'RETURN'));
ALTER TABLE approval_record
    ADD COLUMN return_target VARCHAR(128),
    ADD COLUMN return_mode   VARCHAR(16) CHECK (return_mode IN ('RERUN', 'JUMP_BACK'));
ALTER TABLE approval_record ADD CONSTRAINT ck_approval_record_return CHECK (
    (decision = 'RETURN' AND return_target IS NOT NULL AND return_mode IS NOT NULL AND comment IS NOT NULL)
    OR (decision <> 'RETURN' AND return_target IS NULL AND return_mode IS NULL));
