-- The final deadline of the built-in flows' steps comes from the deadline scan too, not from a timer boundary event
-- (docs/operations.md, "Step deadlines"): a task's row gets its final deadline beside its reminder and escalation
-- times when the task is created, and the firing claims the step's rows by clearing it where it has passed.
ALTER TABLE task_projection ADD COLUMN final_at TIMESTAMPTZ;
-- the scan's third read: open tasks whose final deadline has passed
CREATE INDEX ix_task_projection_final_due ON task_projection (final_at)
    WHERE state = 'OPEN' AND final_at IS NOT NULL;
