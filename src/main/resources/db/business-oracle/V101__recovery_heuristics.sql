-- Oracle counterpart of db/business/V101__recovery_heuristics.sql.
CREATE TABLE recovery_heuristic_event (
    id           NUMBER(19) GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    gtrid        VARCHAR2(400)            NOT NULL,
    participant  VARCHAR2(1000),
    state        VARCHAR2(32)             NOT NULL,
    tm_name      VARCHAR2(40)             NOT NULL,
    reported_at  TIMESTAMP WITH TIME ZONE NOT NULL
);
CREATE INDEX ix_recovery_heuristic_event_gtrid ON recovery_heuristic_event (gtrid);
