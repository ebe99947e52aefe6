-- Reconciliation reads evidence a page of applications at a time (docs/reconciliation.md): a page's open projection
-- rows and its commands still PROCESSING are found by application, not by scanning tables that keep every completed
-- task and every finished command. Oracle has no partial index: the state is the index's last column, filtered in it.
CREATE INDEX ix_task_projection_open_application ON task_projection (application_id, state);
CREATE INDEX ix_workflow_command_processing ON workflow_command (business_type, business_id, command_status);
