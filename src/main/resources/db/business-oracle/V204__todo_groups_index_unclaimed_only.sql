-- Oracle counterpart of db/business/V204__todo_groups_index_unclaimed_only.sql: nothing to change. Oracle
-- has no GIN index on the comma-separated candidate groups (see V200 here), and the todo projection's
-- statements are PostgreSQL-only for now.
SELECT 1 FROM dual;
