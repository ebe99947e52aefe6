-- Counts the locked actions on an application's running process. Each action also writes the count
-- to the process variable lockstepActionSeq in the same XA transaction, and the next action waits
-- until the workflow database shows its predecessor's count (workflow/ActionFence): the business
-- branch commits, and so releases the row lock, a moment before the workflow branch does.
ALTER TABLE application ADD COLUMN action_seq BIGINT NOT NULL DEFAULT 0;
