-- dev.lockstep.platform.ClusterScheduler (db-scheduler 16): one row per scheduled job execution. A node
-- takes a due row by setting picked/picked_by with a version check, so each execution runs on one node;
-- last_heartbeat lets another node take over the job of a node that died. Layout as db-scheduler
-- documents it for PostgreSQL. Pausing a job: docs/operations.md, "Retention".
CREATE TABLE scheduled_tasks (
    task_name             TEXT        NOT NULL,
    task_instance         TEXT        NOT NULL,
    task_data             BYTEA,
    execution_time        TIMESTAMPTZ NOT NULL,
    picked                BOOLEAN     NOT NULL,
    picked_by             TEXT,
    last_success          TIMESTAMPTZ,
    last_failure          TIMESTAMPTZ,
    consecutive_failures  INT,
    last_heartbeat        TIMESTAMPTZ,
    version               BIGINT      NOT NULL,
    priority              SMALLINT,
    PRIMARY KEY (task_name, task_instance)
);
CREATE INDEX ix_scheduled_tasks_execution_time ON scheduled_tasks (execution_time);
CREATE INDEX ix_scheduled_tasks_last_heartbeat ON scheduled_tasks (last_heartbeat);
CREATE INDEX ix_scheduled_tasks_priority_execution_time ON scheduled_tasks (priority DESC, execution_time ASC);

-- The retention purge (dev.lockstep.retention) finds old finished rows by these.
CREATE INDEX ix_workflow_command_finished ON workflow_command (updated_at) WHERE command_status = 'SUCCEEDED';
CREATE INDEX ix_recovery_intent_completed ON recovery_intent (completed_at);
CREATE INDEX ix_recovery_heuristic_event_reported ON recovery_heuristic_event (reported_at);
