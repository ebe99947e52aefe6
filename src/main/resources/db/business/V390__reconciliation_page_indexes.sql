-- Reconciliation reads evidence a page of applications at a time (docs/reconciliation.md): a page's open projection
-- rows and its commands still PROCESSING are found by application, not by scanning tables that keep every completed
-- task and every finished command. Both indexes hold only the few rows in that state.
CREATE INDEX ix_task_projection_open_application ON task_projection (application_id) WHERE state = 'OPEN';
CREATE INDEX ix_workflow_command_processing ON workflow_command (business_type, business_id) WHERE command_status = 'PROCESSING';
