-- The final deadline of the built-in flows' steps comes from the deadline scan too, not from a timer boundary event
-- (docs/operations.md, "Step deadlines"): a task's row gets its final deadline beside its reminder and escalation
-- times when the task is created, and the firing claims the step's rows by clearing it where it has passed.
ALTER TABLE task_projection ADD (final_at TIMESTAMP WITH TIME ZONE);
-- the scan's third read; Oracle has no partial index, so the state leads and the time follows
CREATE INDEX ix_task_projection_final_due ON task_projection (state, final_at);
