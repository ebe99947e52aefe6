-- Issue 30: an application carries its registered business type and, for a type other than APPLICATION, the
-- fields its type's JSON Schema accepted (JSON text) and the definition version its run started on. The asset
-- columns stay required for APPLICATION only: a registered type describes its case in its fields.
ALTER TABLE application ADD COLUMN business_type VARCHAR(40) NOT NULL DEFAULT 'APPLICATION' REFERENCES business_type (type_key);
ALTER TABLE application ADD COLUMN fields TEXT;
ALTER TABLE application ADD COLUMN definition_version INT;
ALTER TABLE application ALTER COLUMN asset_id DROP NOT NULL;
ALTER TABLE application ALTER COLUMN amount DROP NOT NULL;
ALTER TABLE application ALTER COLUMN risk_level DROP NOT NULL;
ALTER TABLE application ALTER COLUMN sensitive DROP NOT NULL;
ALTER TABLE application ADD CONSTRAINT ck_application_typed_fields CHECK (
    (business_type = 'APPLICATION' AND fields IS NULL AND asset_id IS NOT NULL AND amount IS NOT NULL
        AND risk_level IS NOT NULL AND sensitive IS NOT NULL)
    OR (business_type <> 'APPLICATION' AND fields IS NOT NULL));

-- a task of a registered type's run is projected with its application's type, and without an amount
ALTER TABLE task_projection ALTER COLUMN amount DROP NOT NULL;
