-- A countersign application may ask for a manager approval before its countersign (chosen at creation);
-- the signers can then return the application to that step. Only a countersign application can ask.
ALTER TABLE application
    ADD COLUMN countersign_manager_review BOOLEAN NOT NULL DEFAULT FALSE,
    ADD CONSTRAINT ck_application_countersign_manager_review
        CHECK (NOT countersign_manager_review OR countersign_policy IS NOT NULL);
