-- Oracle counterpart of db/business/V415__built_in_definition_versions.sql.
DROP INDEX ux_definition_version_one_active;
CREATE UNIQUE INDEX ux_definition_version_one_active ON definition_version (
    CASE WHEN state = 'ACTIVE' THEN type_key END, CASE WHEN state = 'ACTIVE' THEN process_key END);
