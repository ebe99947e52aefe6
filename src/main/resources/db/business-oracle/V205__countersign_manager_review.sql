-- Oracle counterpart of db/business/V205__countersign_manager_review.sql (0 = false, 1 = true).
ALTER TABLE application ADD (
    countersign_manager_review NUMBER(1) DEFAULT 0 NOT NULL CHECK (countersign_manager_review IN (0, 1))
);
ALTER TABLE application ADD CONSTRAINT ck_application_countersign_manager_review
    CHECK (countersign_manager_review = 0 OR countersign_policy IS NOT NULL);
