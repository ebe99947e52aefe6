-- Node identity (dev.lockstep.recovery.TransactionManagerLease), Oracle counterpart of db/business/V310__tm_name_lease.sql:
-- a lease on each transaction-manager name (holder's host and log directory, instance, expiry renewed
-- by the heartbeat).
ALTER TABLE recovery_node ADD (
    holder_location   VARCHAR2(1100),
    instance_id       VARCHAR2(64),
    lease_expires_at  TIMESTAMP WITH TIME ZONE
);
