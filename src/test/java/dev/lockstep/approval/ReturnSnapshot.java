package dev.lockstep.approval;

import static dev.lockstep.approval.todo.ProjectionAssertions.allRows;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.support.TestDatabases;
import java.util.List;
import java.util.Map;

/**
 * Everything a return would change, read with plain SQL from both databases: compared before and
 * after a refused or rolled-back return.
 */
record ReturnSnapshot(List<Map<String, Object>> projection, List<Map<String, Object>> tasks, List<Map<String, Object>> executions,
        List<Map<String, Object>> taskHistory, List<Map<String, Object>> variables, List<Map<String, Object>> records,
        Map<String, Object> application) {

    static ReturnSnapshot of(TestDatabases db, long id, String processInstanceId) {
        return new ReturnSnapshot(allRows(db),
                db.workflow().queryForList("select id_, task_def_key_, assignee_, rev_ from act_ru_task where proc_inst_id_ = ? order by id_",
                        processInstanceId),
                db.workflow().queryForList("select id_, act_id_, is_active_, rev_ from act_ru_execution where proc_inst_id_ = ? order by id_",
                        processInstanceId),
                db.workflow().queryForList("select id_, end_time_, delete_reason_ from act_hi_taskinst where proc_inst_id_ = ? order by id_",
                        processInstanceId),
                db.workflow().queryForList("select name_, text_, long_, rev_ from act_ru_variable where proc_inst_id_ = ? order by name_, id_",
                        processInstanceId),
                db.business().queryForList("select * from approval_record where application_id = ? order by id", id),
                db.business().queryForMap("select * from application where id = ?", id));
    }

    /** The run has ended: no execution, task, variable or identity link of it is left in ACT_RU_*. */
    static void assertNoRuntimeRows(TestDatabases db, String processInstanceId) {
        for (String table : List.of("act_ru_execution", "act_ru_task", "act_ru_variable", "act_ru_identitylink")) {
            assertThat(db.workflow().queryForObject("select count(*) from " + table + " where proc_inst_id_ = ?", Integer.class,
                    processInstanceId)).as(table).isZero();
        }
    }
}
