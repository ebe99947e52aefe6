-- Evidence for auditors, Oracle counterpart of db/business/V430__audit_evidence.sql.
ALTER TABLE recovery_audit MODIFY (action VARCHAR2(64));
ALTER TABLE recovery_audit ADD (
    format              NUMBER(1) DEFAULT 1 NOT NULL CHECK (format IN (1, 2)),
    clock_source        VARCHAR2(64),
    actor_roles         VARCHAR2(400),
    application_id      NUMBER(19),
    lifecycle_no        NUMBER(10),
    definition_version  VARCHAR2(200),
    request_id          VARCHAR2(128)
);
CREATE INDEX ix_recovery_audit_application ON recovery_audit (application_id, seq);
CREATE INDEX ix_recovery_audit_at ON recovery_audit (at, seq);

ALTER TABLE recovery_audit_intake MODIFY (action VARCHAR2(64));
ALTER TABLE recovery_audit_intake ADD (
    clock_source        VARCHAR2(64),
    actor_roles         VARCHAR2(400),
    application_id      NUMBER(19),
    lifecycle_no        NUMBER(10),
    definition_version  VARCHAR2(200),
    request_id          VARCHAR2(128)
);

CREATE OR REPLACE TRIGGER recovery_audit_intake_chain_only
    BEFORE UPDATE OR DELETE ON recovery_audit_intake FOR EACH ROW
BEGIN
    IF UPDATING AND :OLD.chained_seq IS NULL AND :NEW.chained_seq IS NOT NULL
            AND :NEW.id = :OLD.id AND :NEW.at = :OLD.at AND :NEW.actor = :OLD.actor AND :NEW.action = :OLD.action
            AND DECODE(:NEW.gtrid, :OLD.gtrid, 1, 0) = 1 AND :NEW.detail = :OLD.detail
            AND DECODE(:NEW.clock_source, :OLD.clock_source, 1, 0) = 1
            AND DECODE(:NEW.actor_roles, :OLD.actor_roles, 1, 0) = 1
            AND DECODE(:NEW.application_id, :OLD.application_id, 1, 0) = 1
            AND DECODE(:NEW.lifecycle_no, :OLD.lifecycle_no, 1, 0) = 1
            AND DECODE(:NEW.definition_version, :OLD.definition_version, 1, 0) = 1
            AND DECODE(:NEW.request_id, :OLD.request_id, 1, 0) = 1 THEN
        RETURN;
    END IF;
    RAISE_APPLICATION_ERROR(-20001, 'recovery_audit_intake only takes chained_seq, once');
END;
/

CREATE TABLE audit_installation (
    id          VARCHAR2(64) PRIMARY KEY,
    created_at  TIMESTAMP WITH TIME ZONE NOT NULL,
    one_row     NUMBER(1) DEFAULT 1 NOT NULL UNIQUE CHECK (one_row = 1)
);
INSERT INTO audit_installation (id, created_at)
    VALUES (LOWER(REGEXP_REPLACE(RAWTOHEX(SYS_GUID()), '(.{8})(.{4})(.{4})(.{4})(.{12})', '\1-\2-\3-\4-\5')), SYSTIMESTAMP);

CREATE TABLE audit_checkpoint (
    id               NUMBER(19) GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    installation_id  VARCHAR2(64)             NOT NULL REFERENCES audit_installation (id),
    entries          NUMBER(19)               NOT NULL CHECK (entries >= 0),
    head_hash        CHAR(64)                 NOT NULL,
    at               TIMESTAMP WITH TIME ZONE NOT NULL,
    signed_by        VARCHAR2(64)             NOT NULL,
    public_key       VARCHAR2(200)            NOT NULL,
    signature        VARCHAR2(200)            NOT NULL
);
CREATE INDEX ix_audit_checkpoint_entries ON audit_checkpoint (entries);

CREATE OR REPLACE TRIGGER audit_checkpoint_append_only
    BEFORE UPDATE OR DELETE ON audit_checkpoint FOR EACH ROW
BEGIN
    RAISE_APPLICATION_ERROR(-20001, 'audit_checkpoint is append-only');
END;
/
