-- The todo list's group arm returns only unclaimed tasks (assignee IS NULL: TaskProjection.todo), but the
-- GIN index of V200 also held the open tasks already assigned to someone, which every todo page then read
-- from the heap and filtered out. Indexing only the unclaimed ones: on the benchmark's 100,000 open tasks
-- over 50 groups a todo page read 1,005 instead of 1,971 rows, 882 instead of 1,386 buffers
-- (docs/performance.md, "Todo and done pages").
DROP INDEX ix_task_projection_todo_groups;
CREATE INDEX ix_task_projection_todo_groups ON task_projection USING GIN (candidate_groups)
    WHERE state = 'OPEN' AND assignee IS NULL;
