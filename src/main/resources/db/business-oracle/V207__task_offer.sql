-- Oracle counterpart of db/business/V207__task_offer.sql: the table only. Its triggers unnest the
-- PostgreSQL text[] candidate groups, and the todo projection's statements are PostgreSQL-only for now
-- (see V200 here), so on Oracle nothing fills it yet.
CREATE TABLE task_offer (
    task_id     VARCHAR2(128) NOT NULL REFERENCES task_projection (task_id) ON DELETE CASCADE,
    group_id    VARCHAR2(255) NOT NULL,
    created_at  TIMESTAMP WITH TIME ZONE NOT NULL,
    CONSTRAINT pk_task_offer PRIMARY KEY (task_id, group_id)
);
CREATE INDEX ix_task_offer_todo ON task_offer (group_id, created_at DESC, task_id DESC);
