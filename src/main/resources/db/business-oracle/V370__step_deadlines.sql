-- Oracle counterpart of db/business/V370__step_deadlines.sql. The check constraints of V1 and V330
-- were created unnamed, so Oracle named them itself: find each by its table and condition.
DECLARE
    PROCEDURE drop_check(table_name_in VARCHAR2, column_in VARCHAR2) IS
    BEGIN
        FOR c IN (SELECT uc.constraint_name
                    FROM user_constraints uc JOIN user_cons_columns ucc
                      ON ucc.constraint_name = uc.constraint_name AND ucc.table_name = uc.table_name
                   WHERE uc.table_name = table_name_in AND uc.constraint_type = 'C' AND ucc.column_name = column_in
                     AND uc.search_condition_vc LIKE '%IN (%') LOOP
            EXECUTE IMMEDIATE 'ALTER TABLE ' || table_name_in || ' DROP CONSTRAINT ' || c.constraint_name;
        END LOOP;
    END;
BEGIN
    drop_check('BUSINESS_PROCESS_BINDING', 'BINDING_STATUS');
    drop_check('APPLICATION_EVENT', 'KIND');
END;
/
ALTER TABLE business_process_binding ADD CONSTRAINT ck_binding_status
    CHECK (binding_status IN ('ACTIVE', 'APPROVED', 'REJECTED', 'WITHDRAWN', 'TERMINATED', 'RETURNED'));

ALTER TABLE application_event ADD CONSTRAINT ck_application_event_kind
    CHECK (kind IN ('WITHDRAWN', 'TERMINATED', 'REMINDED', 'ESCALATED', 'OVERDUE_REJECTED', 'OVERDUE_RETURNED'));
ALTER TABLE application_event DROP CONSTRAINT uq_application_event_lifecycle;
-- Oracle has no partial index: a function-based unique index over the ending kinds only
CREATE UNIQUE INDEX uq_application_event_lifecycle ON application_event (
    CASE WHEN kind IN ('WITHDRAWN', 'TERMINATED', 'OVERDUE_REJECTED', 'OVERDUE_RETURNED') THEN application_id END,
    CASE WHEN kind IN ('WITHDRAWN', 'TERMINATED', 'OVERDUE_REJECTED', 'OVERDUE_RETURNED') THEN lifecycle_no END);

ALTER TABLE task_projection ADD (due_at TIMESTAMP WITH TIME ZONE, overdue_since TIMESTAMP WITH TIME ZONE);
CREATE INDEX ix_task_projection_overdue ON task_projection (state, task_definition_key, overdue_since);
