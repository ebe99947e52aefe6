-- History archival, Oracle counterpart of db/business/V380__history_archive.sql. Not run here (no Oracle).

CREATE TABLE archived_process (
    process_instance_id    VARCHAR2(64)             PRIMARY KEY,
    business_key           VARCHAR2(255),
    process_definition_id  VARCHAR2(255)            NOT NULL,
    start_user_id          VARCHAR2(255),
    start_time             TIMESTAMP WITH TIME ZONE NOT NULL,
    end_time               TIMESTAMP WITH TIME ZONE NOT NULL,
    delete_reason          CLOB,
    outcome                VARCHAR2(255),
    archived_at            TIMESTAMP WITH TIME ZONE NOT NULL
);
CREATE INDEX archived_process_business_key ON archived_process (business_key);

CREATE TABLE archived_activity (
    id                   VARCHAR2(64)             PRIMARY KEY,
    process_instance_id  VARCHAR2(64)             NOT NULL REFERENCES archived_process (process_instance_id),
    activity_id          VARCHAR2(255),
    activity_name        VARCHAR2(255),
    activity_type        VARCHAR2(255),
    assignee             VARCHAR2(255),
    task_id              VARCHAR2(64),
    start_time           TIMESTAMP WITH TIME ZONE NOT NULL,
    end_time             TIMESTAMP WITH TIME ZONE,
    delete_reason        CLOB
);
CREATE INDEX archived_activity_process ON archived_activity (process_instance_id);

CREATE TABLE archived_task (
    task_id              VARCHAR2(64)             PRIMARY KEY,
    process_instance_id  VARCHAR2(64)             NOT NULL REFERENCES archived_process (process_instance_id),
    task_definition_key  VARCHAR2(255),
    task_name            VARCHAR2(255),
    assignee             VARCHAR2(255),
    owner                VARCHAR2(255),
    create_time          TIMESTAMP WITH TIME ZONE NOT NULL,
    end_time             TIMESTAMP WITH TIME ZONE,
    delete_reason        CLOB
);
CREATE INDEX archived_task_process ON archived_task (process_instance_id);

CREATE TABLE archived_variable (
    id                   VARCHAR2(64)             PRIMARY KEY,
    process_instance_id  VARCHAR2(64)             NOT NULL REFERENCES archived_process (process_instance_id),
    task_id              VARCHAR2(64),
    variable_name        VARCHAR2(255)            NOT NULL,
    type_name            VARCHAR2(100),
    text_value           CLOB
);
CREATE INDEX archived_variable_process ON archived_variable (process_instance_id);

CREATE TABLE archived_identity_link (
    id                   VARCHAR2(64)             PRIMARY KEY,
    process_instance_id  VARCHAR2(64)             NOT NULL REFERENCES archived_process (process_instance_id),
    task_id              VARCHAR2(64),
    link_type            VARCHAR2(255),
    user_id              VARCHAR2(255),
    group_id             VARCHAR2(255)
);
CREATE INDEX archived_identity_link_process ON archived_identity_link (process_instance_id);

CREATE TABLE history_archival_control (
    id          NUMBER(1)                PRIMARY KEY CHECK (id = 1),
    paused      NUMBER(1)                NOT NULL CHECK (paused IN (0, 1)),
    changed_by  VARCHAR2(64),
    changed_at  TIMESTAMP WITH TIME ZONE,
    reason      VARCHAR2(1000)
);
INSERT INTO history_archival_control (id, paused) VALUES (1, 0);
