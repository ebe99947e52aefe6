-- 加签/减签 on the application's trail (issue 29, item 4): a signer added to or removed from a running
-- countersign is recorded like a decision, with who, when, why, under which request, the task it
-- created or closed, and whose vote it concerns. task_handover keeps its ADD_SIGNER/REMOVE_SIGNER rows.
ALTER TABLE application_event DROP CONSTRAINT application_event_kind_check;
ALTER TABLE application_event ADD CONSTRAINT application_event_kind_check
    CHECK (kind IN ('WITHDRAWN', 'TERMINATED', 'REMINDED', 'ESCALATED', 'OVERDUE_REJECTED', 'OVERDUE_RETURNED',
                    'SIGNER_ADDED', 'SIGNER_REMOVED'));
ALTER TABLE application_event ADD COLUMN signer_id VARCHAR(64);
-- a signer change names its signer, and only a signer change does
ALTER TABLE application_event ADD CONSTRAINT ck_application_event_signer
    CHECK ((signer_id IS NOT NULL) = (kind IN ('SIGNER_ADDED', 'SIGNER_REMOVED')));
