-- History archival (docs/operations.md, "History archival"): ended processes older than the cut-off move
-- out of the engine's history into these tables, one XA batch at a time. Every primary key is the
-- engine's own id, so a batch re-run after a crash cannot write a row twice.

CREATE TABLE archived_process (
    process_instance_id    VARCHAR(64)  PRIMARY KEY,
    business_key           VARCHAR(255),
    process_definition_id  VARCHAR(255) NOT NULL,
    start_user_id          VARCHAR(255),
    start_time             TIMESTAMPTZ  NOT NULL,
    end_time               TIMESTAMPTZ  NOT NULL,
    delete_reason          TEXT,
    outcome                VARCHAR(255),
    archived_at            TIMESTAMPTZ  NOT NULL
);
CREATE INDEX archived_process_business_key ON archived_process (business_key);

CREATE TABLE archived_activity (
    id                   VARCHAR(64)  PRIMARY KEY,
    process_instance_id  VARCHAR(64)  NOT NULL REFERENCES archived_process (process_instance_id),
    activity_id          VARCHAR(255),
    activity_name        VARCHAR(255),
    activity_type        VARCHAR(255),
    assignee             VARCHAR(255),
    task_id              VARCHAR(64),
    start_time           TIMESTAMPTZ  NOT NULL,
    end_time             TIMESTAMPTZ,
    delete_reason        TEXT
);
CREATE INDEX archived_activity_process ON archived_activity (process_instance_id);

CREATE TABLE archived_task (
    task_id              VARCHAR(64)  PRIMARY KEY,
    process_instance_id  VARCHAR(64)  NOT NULL REFERENCES archived_process (process_instance_id),
    task_definition_key  VARCHAR(255),
    task_name            VARCHAR(255),
    assignee             VARCHAR(255),
    owner                VARCHAR(255),
    create_time          TIMESTAMPTZ  NOT NULL,
    end_time             TIMESTAMPTZ,
    delete_reason        TEXT
);
CREATE INDEX archived_task_process ON archived_task (process_instance_id);

-- the value as text: the archive is a record to read, not variables to restore into a process
CREATE TABLE archived_variable (
    id                   VARCHAR(64)  PRIMARY KEY,
    process_instance_id  VARCHAR(64)  NOT NULL REFERENCES archived_process (process_instance_id),
    task_id              VARCHAR(64),
    variable_name        VARCHAR(255) NOT NULL,
    type_name            VARCHAR(100),
    text_value           TEXT
);
CREATE INDEX archived_variable_process ON archived_variable (process_instance_id);

CREATE TABLE archived_identity_link (
    id                   VARCHAR(64)  PRIMARY KEY,
    process_instance_id  VARCHAR(64)  NOT NULL REFERENCES archived_process (process_instance_id),
    task_id              VARCHAR(64),
    link_type            VARCHAR(255),
    user_id              VARCHAR(255),
    group_id             VARCHAR(255)
);
CREATE INDEX archived_identity_link_process ON archived_identity_link (process_instance_id);

-- One row: paused or not, and who changed it. Each batch locks it first, so batches run one at a time
-- across nodes and a pause takes effect at the next batch.
CREATE TABLE history_archival_control (
    id          SMALLINT     PRIMARY KEY CHECK (id = 1),
    paused      BOOLEAN      NOT NULL,
    changed_by  VARCHAR(64),
    changed_at  TIMESTAMPTZ,
    reason      VARCHAR(1000)
);
INSERT INTO history_archival_control (id, paused) VALUES (1, FALSE);
