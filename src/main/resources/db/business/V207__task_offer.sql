-- The todo list's group arm as an ordered index scan (docs/performance.md, "Todo and done pages").
-- task_offer holds one row per (open unclaimed task, candidate group), kept by triggers on
-- task_projection in the same statement (hence the same XA transaction) as the projection row itself,
-- so it is exactly "unnest(candidate_groups) of the open rows without assignee" at every commit,
-- including the rebuild (delete cascades, re-insert fires the trigger) and bulk loads.
-- TaskProjection.todo reads up to page-size + 1 rows per caller group from ix_task_offer_todo, newest
-- first with the keyset in the index condition, instead of a bitmap scan and sort of every unclaimed
-- task of the caller's groups.
CREATE TABLE task_offer (
    task_id     VARCHAR(128) NOT NULL REFERENCES task_projection (task_id) ON DELETE CASCADE,
    group_id    TEXT         NOT NULL,
    created_at  TIMESTAMPTZ  NOT NULL,
    PRIMARY KEY (task_id, group_id)
);
CREATE INDEX ix_task_offer_todo ON task_offer (group_id, created_at DESC, task_id DESC);

CREATE FUNCTION task_offer_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        DELETE FROM task_offer WHERE task_id = OLD.task_id;
    END IF;
    IF NEW.state = 'OPEN' AND NEW.assignee IS NULL THEN
        INSERT INTO task_offer (task_id, group_id, created_at)
        SELECT DISTINCT NEW.task_id, candidate_group, NEW.created_at FROM unnest(NEW.candidate_groups) AS candidate_group;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER task_offer_on_insert AFTER INSERT ON task_projection FOR EACH ROW
    WHEN (NEW.state = 'OPEN' AND NEW.assignee IS NULL)
    EXECUTE FUNCTION task_offer_sync();
CREATE TRIGGER task_offer_on_update AFTER UPDATE OF state, assignee, candidate_groups, created_at ON task_projection FOR EACH ROW
    WHEN (OLD.state IS DISTINCT FROM NEW.state OR OLD.assignee IS DISTINCT FROM NEW.assignee
          OR OLD.candidate_groups IS DISTINCT FROM NEW.candidate_groups OR OLD.created_at IS DISTINCT FROM NEW.created_at)
    EXECUTE FUNCTION task_offer_sync();

INSERT INTO task_offer (task_id, group_id, created_at)
SELECT DISTINCT task_id, unnest(candidate_groups), created_at FROM task_projection WHERE state = 'OPEN' AND assignee IS NULL;

-- The group arm no longer reads the GIN index of V204; keeping it would only cost every task change.
DROP INDEX ix_task_projection_todo_groups;
