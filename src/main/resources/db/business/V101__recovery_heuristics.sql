-- Heuristic outcomes Atomikos reported through its EventListener SPI (a participant decided on its own).
CREATE TABLE recovery_heuristic_event (
    id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    gtrid        VARCHAR(400) NOT NULL,
    participant  VARCHAR(1000),
    state        VARCHAR(32)  NOT NULL,
    tm_name      VARCHAR(40)  NOT NULL,
    reported_at  TIMESTAMPTZ  NOT NULL
);
CREATE INDEX ix_recovery_heuristic_event_gtrid ON recovery_heuristic_event (gtrid);
