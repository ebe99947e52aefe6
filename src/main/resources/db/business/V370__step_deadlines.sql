-- Step deadlines and escalation (docs/operations.md, "Step deadlines"): the engine's timer jobs remind,
-- escalate and, where a policy says so, end a step that nobody decided. Each firing is one XA
-- transaction; these are its business-side records.

-- A deadline may send an application back to its applicant: the run ends RETURNED, the application
-- is a DRAFT again and a resubmission starts lifecycle n+1.
ALTER TABLE business_process_binding DROP CONSTRAINT business_process_binding_binding_status_check;
ALTER TABLE business_process_binding ADD CONSTRAINT business_process_binding_binding_status_check
    CHECK (binding_status IN ('ACTIVE', 'APPROVED', 'REJECTED', 'WITHDRAWN', 'TERMINATED', 'RETURNED'));

-- The trail records each firing (actor 'deadline'). A lifecycle still ends by at most one cancel,
-- but may now see any number of reminders and escalations.
ALTER TABLE application_event DROP CONSTRAINT application_event_kind_check;
ALTER TABLE application_event ADD CONSTRAINT application_event_kind_check
    CHECK (kind IN ('WITHDRAWN', 'TERMINATED', 'REMINDED', 'ESCALATED', 'OVERDUE_REJECTED', 'OVERDUE_RETURNED'));
ALTER TABLE application_event DROP CONSTRAINT uq_application_event_lifecycle;
CREATE UNIQUE INDEX uq_application_event_lifecycle ON application_event (application_id, lifecycle_no)
    WHERE kind IN ('WITHDRAWN', 'TERMINATED', 'OVERDUE_REJECTED', 'OVERDUE_RETURNED');

-- The todo list shows when a step is due (from the policy at the task's creation) and since when it is
-- overdue (set by the reminder's firing, in the same transaction as its trail entry).
ALTER TABLE task_projection ADD COLUMN due_at TIMESTAMPTZ;
ALTER TABLE task_projection ADD COLUMN overdue_since TIMESTAMPTZ;
-- overdue open tasks by step, for the metrics
CREATE INDEX ix_task_projection_overdue ON task_projection (task_definition_key, overdue_since)
    WHERE state = 'OPEN' AND overdue_since IS NOT NULL;
