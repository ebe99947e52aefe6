package dev.lockstep.approval.todo;

import static dev.lockstep.approval.ApiFlows.complete;
import static dev.lockstep.approval.ApiFlows.createDraft;
import static dev.lockstep.approval.ApiFlows.openTaskId;
import static dev.lockstep.approval.ApiFlows.submit;
import static dev.lockstep.approval.todo.ProjectionAssertions.assertOffersMatchProjection;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.support.Api;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.TestDatabases;
import java.math.BigDecimal;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;
import org.springframework.transaction.IllegalTransactionStateException;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The todo statement reads the caller's own tasks and each group's offers as separate ordered arms
 * (task_offer). Whatever the arms, the pages must hold exactly what the plain definition selects —
 * open, assigned to the caller or unclaimed with one of their groups, newest first — each task once,
 * also when it is offered to several of the caller's groups.
 */
@LockstepIntegrationTest
class TodoStatementTest {

    private static final TaskFilter NO_FILTER = new TaskFilter(null, null, null, null, null, null);
    private static final String DEFINITION = "select task_id from task_projection where state = 'OPEN'"
            + " and (assignee = ? or (assignee is null and candidate_groups && string_to_array(?, ',')))";

    @Autowired
    Api api;
    @Autowired
    TestDatabases db;
    @Autowired
    TaskProjection projection;
    @Autowired
    PlatformTransactionManager transactions;

    @Test
    void pagesOfOwnAndOfferedTasksEqualThePlainDefinition() {
        String claimed = openTaskId(db, submit(api, createDraft(api, "LOW", true)), "managerApproval");
        assertThat(api.post("bob", "/api/tasks/" + claimed + "/claim", null).status()).isEqualTo(200);
        for (int i = 0; i < 3; i++) {
            submit(api, createDraft(api, "LOW", true));
        }
        String processInstanceId = submit(api, createDraft(api, "LOW", true));
        assertThat(complete(api, "bob", openTaskId(db, processInstanceId, "managerApproval"), "APPROVE").status()).isEqualTo(200);
        long application = db.business().queryForObject("select max(id) from application", Long.class);
        // A task offered to two groups at once (no shipped step does that yet; the statement must still list it once).
        db.business().update("""
                insert into task_projection (task_id, process_instance_id, task_definition_key, task_name, business_type,
                       application_id, applicant_id, application_title, amount, state, candidate_groups, created_at)
                values ('two-groups', 'none', 'jointReview', 'Joint review', 'APPLICATION', ?, 'alice', 'Joint', 1, 'OPEN',
                       '{managers,legal}', now())""", application);
        try {
            assertOffersMatchProjection(db);
            for (String user : List.of("bob", "carol", "nobody")) {
                for (String groups : List.of("managers", "legal", "managers,legal", "managers,legal,finance", "")) {
                    assertThat(pagedThrough(user, groups, 2)).as(user + " in " + groups).isEqualTo(definition(user, groups))
                            .doesNotHaveDuplicates();
                }
            }
            assertThat(pagedThrough("carol", "managers,legal", 2)).contains("two-groups");
            BigDecimal min = new BigDecimal("2");
            TaskFilter amountAtLeastTwo = new TaskFilter(null, null, min, null, null, null);
            assertThat(page("carol", "managers,legal", amountAtLeastTwo, null, 100).items()).extracting(TaskView::id)
                    .isEqualTo(db.business().queryForList(DEFINITION + " and amount >= ? order by created_at desc, task_id desc",
                            String.class, "carol", "managers,legal", min))
                    .doesNotContain("two-groups");
        } finally {
            db.business().update("delete from task_projection where task_id = 'two-groups'");
        }
        assertOffersMatchProjection(db);
    }

    /**
     * pgjdbc prepares a statement on the server from its fifth execution on a connection; PostgreSQL then plans it
     * for the values given five times and keeps a generic plan when its estimate costs no more. Whether it does
     * depends on the tables' statistics, which the other tests' rows make different from run to run, so this test
     * checks what lets the generic plan compete, as the server sees the prepared statement: no integer parameter (a
     * {@code LIMIT} parameter makes a generic plan assume a tenth of the rows) and no array parameter (it hides how
     * many groups there are). The old statement, {@code group_id = any(?)} and {@code limit ?}, fails both. Its
     * effect at 1.1 million rows, PostgreSQL's CPU per todo request halved, is measured in the benchmark
     * (docs/performance.md).
     */
    @Test
    void theTodoStatementGivesAGenericPlanNothingToGuess() {
        // the served statement, run on one connection as a pooled connection of the service runs it again and again
        TaskProjectionDialect.Statement todo = TaskProjection.todoStatement(TaskProjectionDialect.POSTGRESQL, "bob",
                List.of("managers", "legal"), NO_FILTER, null, 20);
        List<String> parameterTypes = db.business().execute((Connection connection) -> {
            JdbcTemplate oneConnection = new JdbcTemplate(new SingleConnectionDataSource(connection, true));
            for (int i = 0; i < 12; i++) {
                oneConnection.queryForList(todo.sql(), todo.arguments().toArray());
            }
            return oneConnection.queryForList("select array_to_string(parameter_types, ',') from pg_prepared_statements"
                    + " where statement like '%from task_offer o join task_projection p%'", String.class);
        });
        assertThat(parameterTypes).as("the todo statement, prepared on the server by its connection").isNotEmpty();
        assertThat(parameterTypes).allSatisfy(types -> assertThat(List.of(types.split(",")))
                .as("its parameter types").isNotEmpty()
                .noneMatch(type -> type.endsWith("[]"))
                .noneMatch(type -> List.of("smallint", "integer", "bigint").contains(type)));
    }

    /** A page is one statement read outside any transaction; asked for inside one, it is refused rather than read apart. */
    @Test
    void aPageIsNotReadInsideATransaction() {
        assertThatThrownBy(() -> new TransactionTemplate(transactions).execute(status ->
                projection.todo("bob", List.of("managers"), NO_FILTER, null, 20)))
                .isInstanceOf(IllegalTransactionStateException.class);
    }

    private List<String> pagedThrough(String user, String groups, int size) {
        List<String> ids = new ArrayList<>();
        String cursor = null;
        do {
            TaskPage page = page(user, groups, NO_FILTER, cursor, size);
            assertThat(page.items().size()).isLessThanOrEqualTo(size);
            page.items().forEach(task -> ids.add(task.id()));
            cursor = page.nextCursor();
        } while (cursor != null);
        return ids;
    }

    private TaskPage page(String user, String groups, TaskFilter filter, String cursor, int size) {
        List<String> groupList = groups.isEmpty() ? List.of() : List.of(groups.split(","));
        return projection.todo(user, groupList, filter, cursor, size);
    }

    private List<String> definition(String user, String groups) {
        return db.business().queryForList(DEFINITION + " order by created_at desc, task_id desc", String.class, user, groups);
    }
}
