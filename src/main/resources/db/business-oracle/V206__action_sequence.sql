-- Oracle counterpart of db/business/V206__action_sequence.sql.
ALTER TABLE application ADD (
    action_seq NUMBER(19) DEFAULT 0 NOT NULL
);
