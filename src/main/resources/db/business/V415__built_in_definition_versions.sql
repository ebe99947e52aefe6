-- Issue 30: the built-in type's flows (APPLICATION: applicationApproval and countersignApproval) are recorded as its
-- versions, one ACTIVE per engine process key. A registered type has one process key (type_<KEY>), so for it this
-- is still one ACTIVE version per type.
DROP INDEX ux_definition_version_one_active;
CREATE UNIQUE INDEX ux_definition_version_one_active ON definition_version (type_key, process_key) WHERE state = 'ACTIVE';
