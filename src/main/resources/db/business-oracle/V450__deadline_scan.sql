-- Reminders and escalations come from a scan of the todo projection instead of two timer boundary events per
-- step (docs/operations.md, "Step deadlines"): the row of a task gets its escalation time beside its reminder
-- time (due_at) when the task is created, and a firing claims the step's rows by setting the mark it is
-- about (overdue_since for a reminder, escalated_at for an escalation) where still null.
ALTER TABLE task_projection ADD (escalate_at TIMESTAMP WITH TIME ZONE, escalated_at TIMESTAMP WITH TIME ZONE);
-- the scan's two reads; Oracle has no partial index, so the state leads and the time follows
CREATE INDEX ix_task_projection_remind_due ON task_projection (state, due_at);
CREATE INDEX ix_task_projection_escalate_due ON task_projection (state, escalate_at);
