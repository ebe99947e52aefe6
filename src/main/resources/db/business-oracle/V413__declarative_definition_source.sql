-- Issue 30: a definition uploaded in the declarative form (JSON or YAML) keeps that document and its media type
-- next to the BPMN it was compiled to (source_xml) and the XML the engine runs (deployable_xml). Both or neither.
ALTER TABLE definition_version ADD (
    declarative_source     CLOB,
    declarative_media_type VARCHAR2(40)
);
ALTER TABLE definition_version ADD CONSTRAINT ck_definition_version_declarative CHECK (
    (declarative_source IS NULL AND declarative_media_type IS NULL)
    OR (declarative_source IS NOT NULL AND declarative_media_type IS NOT NULL));
