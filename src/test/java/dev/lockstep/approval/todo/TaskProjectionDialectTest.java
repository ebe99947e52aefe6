package dev.lockstep.approval.todo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.approval.todo.ProjectedTask.TaskState;
import dev.lockstep.approval.todo.TaskProjectionDialect.Condition;
import dev.lockstep.approval.todo.TaskProjectionDialect.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The projection's two vendor forms, without a database: each todo statement binds exactly one argument per
 * placeholder, in the order the arms read them, and the Oracle form writes task_offer as V207's trigger does on
 * PostgreSQL. That the PostgreSQL form returns the right rows is TodoStatementTest's; no Oracle runs here.
 */
class TaskProjectionDialectTest {

    private static final Instant CREATED = Instant.parse("2026-12-01T08:00:00Z");

    @Test
    void everyTodoStatementBindsOneArgumentPerPlaceholder() {
        for (TaskProjectionDialect dialect : TaskProjectionDialect.values()) {
            for (List<String> groups : List.of(List.<String>of(), List.of("managers"), List.of("managers", "finance", "risk"))) {
                for (boolean afterACursor : new boolean[] {false, true}) {
                    Condition own = condition(dialect, "p.state = 'OPEN' and p.assignee = ? and p.applicant_id <> ?",
                            List.of("bob", "bob"), afterACursor, "p.created_at", "p.task_id");
                    Condition offered = condition(dialect, "p.applicant_id <> ? and p.amount >= ?", List.of("bob", 10),
                            afterACursor, "o.created_at", "o.task_id");
                    Statement todo = dialect.todo(own, groups, offered, 21);
                    assertThat(placeholders(todo.sql())).as(dialect + " " + groups + " cursor " + afterACursor)
                            .isEqualTo(todo.arguments().size());
                    assertThat(todo.arguments()).as("every group bound").containsAll(groups);
                }
            }
        }
    }

    @Test
    void oracleBindsEachGroupBeforeItsArmsConditions() {
        Condition own = new Condition("p.assignee = ?", List.of("bob"));
        Condition offered = new Condition("p.applicant_id <> ?", List.of("bob"));
        Statement todo = TaskProjectionDialect.ORACLE.todo(own, List.of("managers", "finance"), offered, 21);
        assertThat(todo.arguments()).containsExactly("bob", "managers", "bob", "finance", "bob");
        assertThat(todo.sql()).contains("fetch first 21 rows only").doesNotContain("lateral").doesNotContain("limit");
    }

    @Test
    void theUpsertsBindTheSameThirteenValues() {
        assertThat(placeholders(TaskProjectionDialect.POSTGRESQL.upsert())).isEqualTo(13);
        assertThat(placeholders(TaskProjectionDialect.ORACLE.upsert())).isEqualTo(13);
    }

    @Test
    void onOracleAnOpenUnclaimedTaskIsOfferedToEachOfItsGroupsOnceAndAnyOtherToNone() {
        ProjectedTask unclaimed = task(TaskState.OPEN, null, List.of("managers", "finance", "managers"));
        assertThat(TaskProjectionDialect.ORACLE.offerWrites(unclaimed)).extracting(Statement::arguments).containsExactly(
                List.of("t-1"),
                List.of("t-1", "managers", TaskProjection.utc(CREATED)),
                List.of("t-1", "finance", TaskProjection.utc(CREATED)));
        for (ProjectedTask taken : List.of(task(TaskState.OPEN, "bob", List.of("managers")),
                task(TaskState.COMPLETED, null, List.of("managers")))) {
            assertThat(TaskProjectionDialect.ORACLE.offerWrites(taken)).extracting(Statement::sql)
                    .containsExactly("delete from task_offer where task_id = ?");
        }
        assertThat(TaskProjectionDialect.POSTGRESQL.offerWrites(unclaimed)).as("V207's trigger does it").isEmpty();
    }

    private static Condition condition(TaskProjectionDialect dialect, String where, List<Object> arguments,
            boolean afterACursor, String sortColumn, String taskIdColumn) {
        if (!afterACursor) {
            return new Condition(where, arguments);
        }
        List<Object> all = new ArrayList<>(arguments);
        all.addAll(dialect.keysetArguments(CREATED, "t-9"));
        return new Condition(where + " and " + dialect.keysetAfter(sortColumn, taskIdColumn), all);
    }

    private static ProjectedTask task(TaskState state, String assignee, List<String> groups) {
        return new ProjectedTask("t-1", "p-1", "managerApproval", "Manager approval", state, assignee, null, null, groups,
                CREATED, state == TaskState.OPEN ? null : CREATED.plusSeconds(60), null);
    }

    private static long placeholders(String sql) {
        return sql.chars().filter(c -> c == '?').count();
    }
}
