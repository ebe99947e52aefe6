-- In-doubt transaction recovery (package dev.lockstep.recovery).

-- Heartbeats of the transaction managers sharing these databases: a node whose heartbeat is old is gone.
CREATE TABLE recovery_node (
    tm_name       VARCHAR(40)  PRIMARY KEY,
    started_at    TIMESTAMPTZ  NOT NULL,
    heartbeat_at  TIMESTAMPTZ  NOT NULL
);

-- Business intent of a global transaction, written outside it just before two-phase commit.
CREATE TABLE recovery_intent (
    id            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    gtrid         VARCHAR(200) NOT NULL,
    tm_name       VARCHAR(40)  NOT NULL,
    use_case      VARCHAR(64)  NOT NULL,
    business_key  VARCHAR(128),
    request_id    VARCHAR(128),
    user_id       VARCHAR(64),
    status        VARCHAR(16)  NOT NULL CHECK (status IN ('PREPARING', 'COMMITTED', 'ROLLED_BACK')),
    recorded_at   TIMESTAMPTZ  NOT NULL,
    completed_at  TIMESTAMPTZ
);
CREATE INDEX ix_recovery_intent_gtrid ON recovery_intent (gtrid);

-- A DBA's four-eyes resolution of one branch (resource + raw_id) or of a whole global transaction.
CREATE TABLE recovery_resolution (
    id             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    gtrid          VARCHAR(400)  NOT NULL,
    resource       VARCHAR(64),
    raw_id         VARCHAR(400),
    action         VARCHAR(16)   NOT NULL CHECK (action IN ('COMMIT', 'ROLLBACK')),
    reason         VARCHAR(2000) NOT NULL,
    override       BOOLEAN       NOT NULL DEFAULT FALSE,
    justification  VARCHAR(2000),
    status         VARCHAR(16)   NOT NULL CHECK (status IN ('PROPOSED', 'APPROVED', 'EXECUTED', 'FAILED')),
    proposed_by    VARCHAR(64)   NOT NULL,
    proposed_at    TIMESTAMPTZ   NOT NULL,
    approved_by    VARCHAR(64),
    approved_at    TIMESTAMPTZ,
    executed_by    VARCHAR(64),
    executed_at    TIMESTAMPTZ,
    outcome        VARCHAR(2000),
    CONSTRAINT ck_recovery_resolution_override CHECK (NOT override OR length(trim(justification)) > 0),
    CONSTRAINT ck_recovery_resolution_four_eyes CHECK (approved_by IS NULL OR approved_by <> proposed_by),
    CONSTRAINT ck_recovery_resolution_branch CHECK ((resource IS NULL) = (raw_id IS NULL))
);
CREATE INDEX ix_recovery_resolution_gtrid ON recovery_resolution (gtrid);

-- How each branch ended under a resolution: the evidence for "a sibling is already committed".
CREATE TABLE recovery_branch_outcome (
    id             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    resolution_id  BIGINT       NOT NULL REFERENCES recovery_resolution (id),
    gtrid          VARCHAR(400) NOT NULL,
    resource       VARCHAR(64)  NOT NULL,
    raw_id         VARCHAR(400) NOT NULL,
    outcome        VARCHAR(16)  NOT NULL CHECK (outcome IN ('COMMITTED', 'ROLLED_BACK', 'ALREADY_GONE')),
    ended_at       TIMESTAMPTZ  NOT NULL
);
CREATE INDEX ix_recovery_branch_outcome_gtrid ON recovery_branch_outcome (gtrid);

-- Append-only, hash-chained audit trail: hash = sha256(prev_hash || canonical entry).
CREATE TABLE recovery_audit (
    seq        BIGINT        PRIMARY KEY,
    at         TIMESTAMPTZ   NOT NULL,
    actor      VARCHAR(64)   NOT NULL,
    action     VARCHAR(32)   NOT NULL,
    gtrid      VARCHAR(400),
    detail     VARCHAR(4000) NOT NULL,
    prev_hash  CHAR(64)      NOT NULL,
    hash       CHAR(64)      NOT NULL UNIQUE
);

CREATE FUNCTION recovery_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'recovery_audit is append-only: % is not allowed', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;
CREATE TRIGGER recovery_audit_no_update_delete BEFORE UPDATE OR DELETE ON recovery_audit
    FOR EACH ROW EXECUTE FUNCTION recovery_audit_append_only();
CREATE TRIGGER recovery_audit_no_truncate BEFORE TRUNCATE ON recovery_audit
    FOR EACH STATEMENT EXECUTE FUNCTION recovery_audit_append_only();
