-- Issue 30: versions of a business type's approval definition, and the four-eyes requests that change which
-- one is ACTIVE. Numbered per type by the database (primary key; proposals of one type are serialised by a
-- lock on its business_type row). At most one ACTIVE version per type, and nobody decides their own proposal:
-- both are constraints, so no code path and no race can break them.
CREATE TABLE definition_version (
    type_key             VARCHAR(40)   NOT NULL REFERENCES business_type (type_key),
    version              INTEGER       NOT NULL CHECK (version > 0),
    state                VARCHAR(10)   NOT NULL CHECK (state IN ('PROPOSED', 'ACTIVE', 'RETIRED', 'REJECTED')),
    process_key          VARCHAR(64)   NOT NULL,
    name                 VARCHAR(200),
    source_xml           TEXT          NOT NULL,
    deployable_xml       TEXT          NOT NULL,
    user_task_ids        TEXT          NOT NULL,
    engine_definition_id VARCHAR(64),
    proposed_by          VARCHAR(100)  NOT NULL,
    proposed_at          TIMESTAMPTZ   NOT NULL,
    decided_by           VARCHAR(100),
    decided_at           TIMESTAMPTZ,
    PRIMARY KEY (type_key, version),
    CONSTRAINT ck_definition_version_four_eyes CHECK (decided_by IS NULL OR decided_by <> proposed_by),
    CONSTRAINT ck_definition_version_deployed CHECK (state NOT IN ('ACTIVE', 'RETIRED') OR engine_definition_id IS NOT NULL)
);

CREATE UNIQUE INDEX ux_definition_version_one_active ON definition_version (type_key) WHERE state = 'ACTIVE';

-- Every four-eyes change: ACTIVATE a version (a new upload's first activation, or bringing back a RETIRED one),
-- proposed by one admin and approved or rejected by another.
CREATE TABLE definition_change (
    id          BIGSERIAL     PRIMARY KEY,
    type_key    VARCHAR(40)   NOT NULL,
    version     INTEGER       NOT NULL,
    action      VARCHAR(10)   NOT NULL CHECK (action IN ('ACTIVATE')),
    state       VARCHAR(10)   NOT NULL CHECK (state IN ('PROPOSED', 'APPROVED', 'REJECTED')),
    proposed_by VARCHAR(100)  NOT NULL,
    proposed_at TIMESTAMPTZ   NOT NULL,
    decided_by  VARCHAR(100),
    decided_at  TIMESTAMPTZ,
    FOREIGN KEY (type_key, version) REFERENCES definition_version (type_key, version),
    CONSTRAINT ck_definition_change_four_eyes CHECK (decided_by IS NULL OR decided_by <> proposed_by),
    CONSTRAINT ck_definition_change_decided CHECK ((state = 'PROPOSED') = (decided_by IS NULL))
);

-- one open request per version
CREATE UNIQUE INDEX ux_definition_change_open ON definition_change (type_key, version) WHERE state = 'PROPOSED';
