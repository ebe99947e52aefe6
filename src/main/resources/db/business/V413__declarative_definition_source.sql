-- Issue 30: a definition uploaded in the declarative form (JSON or YAML) keeps that document and its media type
-- next to the BPMN it was compiled to (source_xml) and the XML the engine runs (deployable_xml). Both or neither.
ALTER TABLE definition_version ADD COLUMN declarative_source TEXT;
ALTER TABLE definition_version ADD COLUMN declarative_media_type VARCHAR(40);
ALTER TABLE definition_version ADD CONSTRAINT ck_definition_version_declarative CHECK (
    (declarative_source IS NULL) = (declarative_media_type IS NULL));
