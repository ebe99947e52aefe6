-- Audit entries written inside a two-phase transaction wait here until AuditTrail chains them into
-- recovery_audit, Oracle counterpart of db/business/V395__recovery_audit_intake.sql. A row is never
-- deleted; chained_seq is set once, when the entry joins the chain.
CREATE TABLE recovery_audit_intake (
    id          NUMBER(19) GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at          TIMESTAMP WITH TIME ZONE NOT NULL,
    actor       VARCHAR2(64)             NOT NULL,
    action      VARCHAR2(32)             NOT NULL,
    gtrid       VARCHAR2(400),
    detail      VARCHAR2(4000)           NOT NULL,
    chained_seq NUMBER(19)               UNIQUE REFERENCES recovery_audit (seq)
);
-- Only the unchained rows are indexed: a function-based index leaves out rows whose key is all NULL.
CREATE INDEX ix_recovery_audit_intake_unchained ON recovery_audit_intake (CASE WHEN chained_seq IS NULL THEN id END);

CREATE OR REPLACE TRIGGER recovery_audit_intake_chain_only
    BEFORE UPDATE OR DELETE ON recovery_audit_intake FOR EACH ROW
BEGIN
    IF UPDATING AND :OLD.chained_seq IS NULL AND :NEW.chained_seq IS NOT NULL
            AND :NEW.id = :OLD.id AND :NEW.at = :OLD.at AND :NEW.actor = :OLD.actor AND :NEW.action = :OLD.action
            AND DECODE(:NEW.gtrid, :OLD.gtrid, 1, 0) = 1 AND :NEW.detail = :OLD.detail THEN
        RETURN;
    END IF;
    RAISE_APPLICATION_ERROR(-20001, 'recovery_audit_intake only takes chained_seq, once');
END;
/
