-- Node identity (dev.lockstep.recovery.TransactionManagerLease): a lease on each transaction-manager name, so that
-- two live nodes never run under one name (each would recover, and roll back, the other's XIDs).
-- holder_location: host and coordinator log directory of the node holding the name (a restart of that
-- node at the same place takes its name back at once); instance_id: the process holding it now;
-- lease_expires_at: renewed by the heartbeat; another location may take the name over only once past.
ALTER TABLE recovery_node ADD COLUMN holder_location VARCHAR(1100);
ALTER TABLE recovery_node ADD COLUMN instance_id VARCHAR(64);
ALTER TABLE recovery_node ADD COLUMN lease_expires_at TIMESTAMPTZ;
