-- Oracle counterpart of db/business/V205__countersign_manager_review.sql (BOOLEAN as in V1, Oracle 23ai).
ALTER TABLE application ADD (
    countersign_manager_review BOOLEAN DEFAULT FALSE NOT NULL
);
ALTER TABLE application ADD CONSTRAINT ck_application_countersign_manager_review
    CHECK (countersign_manager_review = FALSE OR countersign_policy IS NOT NULL);
