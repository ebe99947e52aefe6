-- Oracle counterpart of db/business/V202__signer_changes.sql.
ALTER TABLE task_handover DROP CONSTRAINT task_handover_kind_check;
ALTER TABLE task_handover ADD CONSTRAINT task_handover_kind_check
    CHECK (kind IN ('DELEGATE', 'RESOLVE', 'TRANSFER', 'ADD_SIGNER', 'REMOVE_SIGNER'));
ALTER TABLE task_handover MODIFY (to_user NULL);
