-- Oracle counterpart of db/business/V400__signer_changes_on_trail.sql (V370 named the kind check).
ALTER TABLE application_event DROP CONSTRAINT ck_application_event_kind;
ALTER TABLE application_event ADD CONSTRAINT ck_application_event_kind
    CHECK (kind IN ('WITHDRAWN', 'TERMINATED', 'REMINDED', 'ESCALATED', 'OVERDUE_REJECTED', 'OVERDUE_RETURNED',
                    'SIGNER_ADDED', 'SIGNER_REMOVED'));
ALTER TABLE application_event ADD (signer_id VARCHAR2(64));
ALTER TABLE application_event ADD CONSTRAINT ck_application_event_signer
    CHECK ((signer_id IS NULL AND kind NOT IN ('SIGNER_ADDED', 'SIGNER_REMOVED'))
        OR (signer_id IS NOT NULL AND kind IN ('SIGNER_ADDED', 'SIGNER_REMOVED')));
