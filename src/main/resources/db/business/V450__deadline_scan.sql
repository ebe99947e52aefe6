-- Reminders and escalations come from a scan of the todo projection instead of two timer boundary events per
-- step (docs/operations.md, "Step deadlines"): the row of a task gets its escalation time beside its reminder
-- time (due_at) when the task is created, and a firing claims the step's rows by setting the mark it is
-- about (overdue_since for a reminder, escalated_at for an escalation) where still null.
ALTER TABLE task_projection ADD COLUMN escalate_at TIMESTAMPTZ;
ALTER TABLE task_projection ADD COLUMN escalated_at TIMESTAMPTZ;
-- the scan's two reads: open tasks whose reminder, or escalation, is due and not yet claimed
CREATE INDEX ix_task_projection_remind_due ON task_projection (due_at)
    WHERE state = 'OPEN' AND overdue_since IS NULL AND due_at IS NOT NULL;
CREATE INDEX ix_task_projection_escalate_due ON task_projection (escalate_at)
    WHERE state = 'OPEN' AND escalated_at IS NULL AND escalate_at IS NOT NULL;
