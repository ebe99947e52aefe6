package dev.lockstep.approval.todo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.support.Api;
import dev.lockstep.support.TestDatabases;
import java.util.List;
import java.util.Map;

/** Plain-SQL views of task_projection, and the check that a rebuild from the engine reproduces it exactly. */
public final class ProjectionAssertions {

    private static final String ROWS = "select task_id, process_instance_id, task_definition_key, task_name, business_type,"
            + " application_id, applicant_id, application_title, amount, state, assignee, owner, delegation_state,"
            + " candidate_groups::text as candidate_groups, created_at, ended_at, end_reason from task_projection";

    private ProjectionAssertions() {
    }

    public static List<Map<String, Object>> allRows(TestDatabases db) {
        return db.business().queryForList(ROWS + " order by task_id");
    }

    public static Map<String, Object> row(TestDatabases db, String taskId) {
        return db.business().queryForMap(ROWS + " where task_id = ?", taskId);
    }

    /** The whole table, rebuilt by the admin command, must equal what the listeners wrote. */
    public static void assertProjectionEqualsRebuild(Api api, TestDatabases db) {
        assertOffersMatchProjection(db);
        List<Map<String, Object>> written = allRows(db);
        Api.Response rebuilt = api.post("erin", "/api/admin/task-projection/rebuild", null);
        assertThat(rebuilt.status()).as(rebuilt.toString()).isEqualTo(200);
        assertThat(rebuilt.json().get("rows").asInt()).isEqualTo(written.size());
        assertThat(allRows(db)).isEqualTo(written);
        // tasks of archived processes left the engine's history for the archive (docs/operations.md, "History archival")
        assertThat(written).hasSize(db.workflow().queryForObject(
                "select count(*) from act_hi_taskinst where proc_inst_id_ is not null", Integer.class)
                + db.business().queryForObject("select count(*) from archived_task", Integer.class));
        assertOffersMatchProjection(db);
    }

    /** task_offer holds exactly one row per candidate group of every open, unclaimed projection row. */
    public static void assertOffersMatchProjection(TestDatabases db) {
        String offers = "select task_id, group_id, created_at from task_offer";
        String expected = "select distinct task_id, unnest(candidate_groups), created_at from task_projection"
                + " where state = 'OPEN' and assignee is null";
        assertThat(db.business().queryForList("(" + offers + " except " + expected + ") union all (" + expected + " except " + offers + ")"))
                .as("task_offer against the open unclaimed projection rows").isEmpty();
        assertThat(db.business().queryForObject("select count(*) from task_offer", Integer.class))
                .isEqualTo(db.business().queryForObject("select count(*) from (" + expected + ") e", Integer.class));
    }
}
