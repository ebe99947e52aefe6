-- Oracle counterpart of db/business/V321__cluster_scheduler.sql: db-scheduler's documented Oracle layout.
CREATE TABLE scheduled_tasks (
    task_name             VARCHAR2(100)               NOT NULL,
    task_instance         VARCHAR2(100)               NOT NULL,
    task_data             BLOB,
    execution_time        TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    picked                NUMBER(1, 0)                NOT NULL,
    picked_by             VARCHAR2(50),
    last_success          TIMESTAMP(6) WITH TIME ZONE,
    last_failure          TIMESTAMP(6) WITH TIME ZONE,
    consecutive_failures  NUMBER(19, 0),
    last_heartbeat        TIMESTAMP(6) WITH TIME ZONE,
    version               NUMBER(19, 0)               NOT NULL,
    priority              NUMBER(4, 0),
    CONSTRAINT pk_scheduled_tasks PRIMARY KEY (task_name, task_instance)
);
CREATE INDEX ix_scheduled_tasks_execution_time ON scheduled_tasks (execution_time);
CREATE INDEX ix_scheduled_tasks_last_heartbeat ON scheduled_tasks (last_heartbeat);
CREATE INDEX ix_scheduled_tasks_priority_execution_time ON scheduled_tasks (priority DESC, execution_time ASC);

-- Oracle has no partial index: the purge's updated_at range scan filters the status.
CREATE INDEX ix_workflow_command_finished ON workflow_command (updated_at, command_status);
CREATE INDEX ix_recovery_intent_completed ON recovery_intent (completed_at);
CREATE INDEX ix_recovery_heuristic_event_reported ON recovery_heuristic_event (reported_at);
