-- A projection drift is repaired by rewriting the one application's rows (TaskProjectionRebuild.rewriteApplication),
-- and the admin rebuild does that application by application: both find every row of an application, open or ended,
-- by application_id. This index serves them and also reconciliation's page reads of open rows by application
-- (V390), whose (application_id, state) index it replaces: an application has a few dozen rows at most.
CREATE INDEX ix_task_projection_application ON task_projection (application_id);
DROP INDEX ix_task_projection_open_application;
