-- In-doubt transaction recovery (package dev.lockstep.recovery), Oracle counterpart of
-- db/business/V100__recovery.sql. Written for Oracle 23ai (BOOLEAN in SQL); not run here (no Docker).

CREATE TABLE recovery_node (
    tm_name       VARCHAR2(40)             PRIMARY KEY,
    started_at    TIMESTAMP WITH TIME ZONE NOT NULL,
    heartbeat_at  TIMESTAMP WITH TIME ZONE NOT NULL
);

CREATE TABLE recovery_intent (
    id            NUMBER(19) GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    gtrid         VARCHAR2(200)            NOT NULL,
    tm_name       VARCHAR2(40)             NOT NULL,
    use_case      VARCHAR2(64)             NOT NULL,
    business_key  VARCHAR2(128),
    request_id    VARCHAR2(128),
    user_id       VARCHAR2(64),
    status        VARCHAR2(16)             NOT NULL CHECK (status IN ('PREPARING', 'COMMITTED', 'ROLLED_BACK')),
    recorded_at   TIMESTAMP WITH TIME ZONE NOT NULL,
    completed_at  TIMESTAMP WITH TIME ZONE
);
CREATE INDEX ix_recovery_intent_gtrid ON recovery_intent (gtrid);

CREATE TABLE recovery_resolution (
    id             NUMBER(19) GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    gtrid          VARCHAR2(400)            NOT NULL,
    resource       VARCHAR2(64),
    raw_id         VARCHAR2(400),
    action         VARCHAR2(16)             NOT NULL CHECK (action IN ('COMMIT', 'ROLLBACK')),
    reason         VARCHAR2(2000)           NOT NULL,
    override       BOOLEAN DEFAULT FALSE    NOT NULL,
    justification  VARCHAR2(2000),
    status         VARCHAR2(16)             NOT NULL CHECK (status IN ('PROPOSED', 'APPROVED', 'EXECUTED', 'FAILED')),
    proposed_by    VARCHAR2(64)             NOT NULL,
    proposed_at    TIMESTAMP WITH TIME ZONE NOT NULL,
    approved_by    VARCHAR2(64),
    approved_at    TIMESTAMP WITH TIME ZONE,
    executed_by    VARCHAR2(64),
    executed_at    TIMESTAMP WITH TIME ZONE,
    outcome        VARCHAR2(2000),
    CONSTRAINT ck_recovery_resolution_override CHECK (NOT override OR length(trim(justification)) > 0),
    CONSTRAINT ck_recovery_resolution_four_eyes CHECK (approved_by IS NULL OR approved_by <> proposed_by),
    CONSTRAINT ck_recovery_resolution_branch CHECK ((resource IS NULL AND raw_id IS NULL) OR (resource IS NOT NULL AND raw_id IS NOT NULL))
);
CREATE INDEX ix_recovery_resolution_gtrid ON recovery_resolution (gtrid);

CREATE TABLE recovery_branch_outcome (
    id             NUMBER(19) GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    resolution_id  NUMBER(19)               NOT NULL REFERENCES recovery_resolution (id),
    gtrid          VARCHAR2(400)            NOT NULL,
    resource       VARCHAR2(64)             NOT NULL,
    raw_id         VARCHAR2(400)            NOT NULL,
    outcome        VARCHAR2(16)             NOT NULL CHECK (outcome IN ('COMMITTED', 'ROLLED_BACK', 'ALREADY_GONE')),
    ended_at       TIMESTAMP WITH TIME ZONE NOT NULL
);
CREATE INDEX ix_recovery_branch_outcome_gtrid ON recovery_branch_outcome (gtrid);

CREATE TABLE recovery_audit (
    seq        NUMBER(19)               PRIMARY KEY,
    at         TIMESTAMP WITH TIME ZONE NOT NULL,
    actor      VARCHAR2(64)             NOT NULL,
    action     VARCHAR2(32)             NOT NULL,
    gtrid      VARCHAR2(400),
    detail     VARCHAR2(4000)           NOT NULL,
    prev_hash  CHAR(64)                 NOT NULL,
    hash       CHAR(64)                 NOT NULL UNIQUE
);

-- Append-only at the database level. (TRUNCATE needs a schema-level DDL trigger, which the
-- schema owner would have to be trusted not to drop anyway; the hash chain still exposes it.)
CREATE OR REPLACE TRIGGER recovery_audit_append_only
    BEFORE UPDATE OR DELETE ON recovery_audit FOR EACH ROW
BEGIN
    RAISE_APPLICATION_ERROR(-20001, 'recovery_audit is append-only');
END;
/
