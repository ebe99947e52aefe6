-- The coordinator log in the business database, Oracle counterpart of db/business/V440__coordinator_log_in_database.sql:
-- one row per coordinator of a transaction-manager name, written under the lease epoch of recovery_node.
CREATE TABLE tm_coordinator_log (
    tm_name         VARCHAR2(40)   NOT NULL,
    coordinator_id  VARCHAR2(128)  NOT NULL,
    epoch           NUMBER(19)     NOT NULL,
    state           VARCHAR2(20)   NOT NULL,
    record_text     VARCHAR2(1000) NOT NULL,
    created_at      TIMESTAMP WITH TIME ZONE NOT NULL,
    updated_at      TIMESTAMP WITH TIME ZONE NOT NULL,
    CONSTRAINT tm_coordinator_log_pk PRIMARY KEY (tm_name, coordinator_id)
);

ALTER TABLE recovery_node ADD (epoch NUMBER(19) DEFAULT 0 NOT NULL);

-- Where the holder keeps its coordinator log (file or database), set with every acquisition: a peer takes over only a
-- name whose decisions it can read (dev.lockstep.recovery.takeover.PeerTakeover); null for rows of older releases.
ALTER TABLE recovery_node ADD (log_store VARCHAR2(10));
