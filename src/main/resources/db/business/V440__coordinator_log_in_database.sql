-- The coordinator log in the business database (lockstep.tm.log=database, issue 31;
-- dev.lockstep.transactions.xa.log.DatabaseLogRepository). One row per coordinator of a transaction-manager name,
-- superseded in place by its later state; TERMINATED rows are deleted at the next checkpoint.
-- epoch: the lease epoch of recovery_node the row was written under. Every write is refused by its own statement
-- unless that epoch still holds the name, so a node that lost its name (a zombie) cannot log a decision; a peer that
-- takes the name over later reads the rows by tm_name.
CREATE TABLE tm_coordinator_log (
    tm_name         VARCHAR(40)   NOT NULL,
    coordinator_id  VARCHAR(128)  NOT NULL,
    epoch           BIGINT        NOT NULL,
    state           VARCHAR(20)   NOT NULL,
    record_text     VARCHAR(1000) NOT NULL,
    created_at      TIMESTAMPTZ   NOT NULL,
    updated_at      TIMESTAMPTZ   NOT NULL,
    PRIMARY KEY (tm_name, coordinator_id)
);

-- Fencing: incremented by every acquisition of the name (dev.lockstep.recovery.TransactionManagerLease); the
-- heartbeat and every coordinator log write name the epoch they hold.
ALTER TABLE recovery_node ADD COLUMN epoch BIGINT NOT NULL DEFAULT 0;

-- Where the holder keeps its coordinator log (file or database), set with every acquisition: a peer takes over only a
-- name whose decisions it can read (dev.lockstep.recovery.takeover.PeerTakeover); null for rows of older releases.
ALTER TABLE recovery_node ADD COLUMN log_store VARCHAR(10);
