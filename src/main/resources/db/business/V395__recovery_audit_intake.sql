-- Audit entries written inside a two-phase transaction (an archival batch, a repair, a termination) wait
-- here until AuditTrail chains them into recovery_audit. Such a branch never locks recovery_audit itself,
-- so a branch left in doubt blocks no other audited write, the recovery console's included. A row is
-- never deleted; chained_seq is set once, when the entry joins the chain.
CREATE TABLE recovery_audit_intake (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at          TIMESTAMPTZ   NOT NULL,
    actor       VARCHAR(64)   NOT NULL,
    action      VARCHAR(32)   NOT NULL,
    gtrid       VARCHAR(400),
    detail      VARCHAR(4000) NOT NULL,
    chained_seq BIGINT        UNIQUE REFERENCES recovery_audit (seq)
);
CREATE INDEX ix_recovery_audit_intake_unchained ON recovery_audit_intake (id) WHERE chained_seq IS NULL;

CREATE FUNCTION recovery_audit_intake_chain_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.chained_seq IS NULL AND NEW.chained_seq IS NOT NULL
            AND (NEW.id, NEW.at, NEW.actor, NEW.action, NEW.gtrid, NEW.detail)
                IS NOT DISTINCT FROM (OLD.id, OLD.at, OLD.actor, OLD.action, OLD.gtrid, OLD.detail) THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'recovery_audit_intake only takes chained_seq, once: % is not allowed', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END
$$;
CREATE TRIGGER recovery_audit_intake_no_change BEFORE UPDATE OR DELETE ON recovery_audit_intake
    FOR EACH ROW EXECUTE FUNCTION recovery_audit_intake_chain_only();
CREATE TRIGGER recovery_audit_intake_no_truncate BEFORE TRUNCATE ON recovery_audit_intake
    FOR EACH STATEMENT EXECUTE FUNCTION recovery_audit_intake_chain_only();
