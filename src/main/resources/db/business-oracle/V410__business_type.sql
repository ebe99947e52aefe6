-- Issue 30: the kinds of case an organisation approves are data. A business type names the JSON Schema of its
-- fields, the fields a flow may route on, and whether an approved case is published to the catalog (and how its
-- fields map to the asset). APPLICATION, today's asset publication, is the first type; its flows stay the
-- compiled-in ones (built_in), so no existing row or answer changes.
CREATE TABLE business_type (
    type_key        VARCHAR2(40)   PRIMARY KEY,
    name            VARCHAR2(200)  NOT NULL,
    json_schema     CLOB           NOT NULL,
    routable_fields CLOB           NOT NULL,
    publishes       NUMBER(1)      NOT NULL CHECK (publishes IN (0, 1)),
    asset_mapping   CLOB,
    built_in        NUMBER(1)      DEFAULT 0 NOT NULL CHECK (built_in IN (0, 1)),
    registered_by   VARCHAR2(100)  NOT NULL,
    registered_at   TIMESTAMP WITH TIME ZONE NOT NULL,
    -- the key becomes part of an engine process key (type_<KEY>): letters, digits and underscores only
    CONSTRAINT ck_business_type_key CHECK (REGEXP_LIKE(type_key, '^[A-Z][A-Z0-9_]{1,39}$'))
);

INSERT INTO business_type (type_key, name, json_schema, routable_fields, publishes, asset_mapping, built_in, registered_by,
                           registered_at)
VALUES ('APPLICATION', 'Asset publication',
        '{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","required":["title","assetId","amount","riskLevel","sensitive"],"properties":{"title":{"type":"string","minLength":1,"maxLength":200},"description":{"type":"string","maxLength":4000},"assetId":{"type":"integer","minimum":1},"amount":{"type":"number","minimum":0},"riskLevel":{"type":"string","enum":["LOW","MEDIUM","HIGH"]},"sensitive":{"type":"boolean"},"countersign":{"type":"object"}}}',
        '["sensitive","riskLevel"]', 1, '{"assetId":"assetId"}', 1, 'system', SYSTIMESTAMP);
