-- Oracle counterpart of db/catalog/V2__payload_sha256.sql.
ALTER TABLE published_asset ADD (payload_sha256 VARCHAR2(64));
