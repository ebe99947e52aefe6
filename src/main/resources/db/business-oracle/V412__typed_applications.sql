-- Issue 30: an application carries its registered business type and, for a type other than APPLICATION, the
-- fields its type's JSON Schema accepted (JSON text) and the definition version its run started on. The asset
-- columns stay required for APPLICATION only: a registered type describes its case in its fields.
ALTER TABLE application ADD (
    business_type      VARCHAR2(40) DEFAULT 'APPLICATION' NOT NULL REFERENCES business_type (type_key),
    fields             CLOB,
    definition_version NUMBER(10)
);
ALTER TABLE application MODIFY (asset_id NULL, amount NULL, risk_level NULL, sensitive NULL);
ALTER TABLE application ADD CONSTRAINT ck_application_typed_fields CHECK (
    (business_type = 'APPLICATION' AND fields IS NULL AND asset_id IS NOT NULL AND amount IS NOT NULL
        AND risk_level IS NOT NULL AND sensitive IS NOT NULL)
    OR (business_type <> 'APPLICATION' AND fields IS NOT NULL));

-- a task of a registered type's run is projected with its application's type, and without an amount
ALTER TABLE task_projection MODIFY (amount NULL);
