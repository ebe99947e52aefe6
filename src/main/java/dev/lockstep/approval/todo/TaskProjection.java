package dev.lockstep.approval.todo;

import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.transactions.businessonly.BusinessReads;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.hibernate.Session;
import org.springframework.stereotype.Repository;

/**
 * The task_projection table. Statements run on Hibernate's connection of the business XA
 * DataSource, so inside an engine command they join the same global transaction as the engine's
 * ACT_* writes, on the same branch as the use case's JPA work (a second connection held open
 * beside Hibernate's would become a second XA branch that cannot see the first one's writes). The todo
 * and done pages, one statement each, are read outside any transaction instead ({@link BusinessReads}).
 */
@Repository
public class TaskProjection {

    @PersistenceContext
    private EntityManager entityManager;

    private final TaskProjectionDialect dialect;
    private final BusinessReads reads;

    TaskProjection(DatabaseEndpoints endpoints, BusinessReads reads) {
        this.dialect = TaskProjectionDialect.of(endpoints.business().vendor());
        this.reads = reads;
    }

    // The business fields, its business type among them, are copied from the application the process runs for
    // (business key = application id); an application of a registered type has no amount.
    void save(ProjectedTask task, String businessKey) {
        int rows = update(dialect.upsert(), task.taskId(), task.processInstanceId(), task.taskDefinitionKey(), task.taskName(),
                task.state().name(), task.assignee(), task.owner(), task.delegationState(),
                String.join(",", task.candidateGroups()), utc(task.createdAt()), utc(task.endedAt()), task.endReason(),
                Long.parseLong(businessKey));
        if (rows != 1) {
            // Failing the engine command rolls the task change back too: better no change than a task nobody sees.
            throw new IllegalStateException("task " + task.taskId() + " belongs to business key " + businessKey
                    + ", which is no application");
        }
        for (TaskProjectionDialect.Statement offer : dialect.offerWrites(task)) {
            update(offer.sql(), offer.arguments().toArray());
        }
    }

    /**
     * The application's row lock until the transaction ends: the lock every task command takes first (the
     * business half of the action), so a rewrite of its rows under it never overlaps one. False: no such application.
     */
    boolean lockApplication(long applicationId) {
        return session().doReturningWork(connection -> {
            try (PreparedStatement statement = prepare(connection, "select id from application where id = ? for update",
                    applicationId); ResultSet rs = statement.executeQuery()) {
                return rs.next();
            }
        });
    }

    /** Up to {@code limit} application ids after {@code afterId}, in order: one batch of a rebuild (keyset, nothing locked). */
    List<Long> applicationsAfter(long afterId, int limit) {
        return session().doReturningWork(connection -> {
            List<Long> ids = new ArrayList<>();
            try (PreparedStatement statement = prepare(connection, "select id from application where id > ? order by id"
                    + " fetch first " + limit + " rows only", afterId); ResultSet rs = statement.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getLong(1));
                }
            }
            return ids;
        });
    }

    /** Deletes the application's rows (its task_offer rows go with them, by cascade); returns how many. */
    int deleteApplication(long applicationId) {
        return update("delete from task_projection where application_id = ?", applicationId);
    }

    /**
     * The deadline marks of the application's tasks, by task: the projection's own record, which the engine does not
     * keep for a rewrite.
     */
    Map<String, DeadlineMarks> deadlineMarksOf(long applicationId) {
        return session().doReturningWork(connection -> {
            Map<String, DeadlineMarks> marks = new HashMap<>();
            try (PreparedStatement statement = prepare(connection, "select task_id, due_at, overdue_since, escalate_at, escalated_at,"
                    + " final_at from task_projection where application_id = ? and (due_at is not null or overdue_since is not null"
                    + " or escalate_at is not null or escalated_at is not null or final_at is not null)", applicationId);
                    ResultSet rs = statement.executeQuery()) {
                while (rs.next()) {
                    marks.put(rs.getString("task_id"), new DeadlineMarks(instant(rs, "due_at"), instant(rs, "overdue_since"),
                            instant(rs, "escalate_at"), instant(rs, "escalated_at"), instant(rs, "final_at")));
                }
            }
            return marks;
        });
    }

    /** Puts back the marks {@link #deadlineMarksOf} read, whatever the task's state now. */
    void restore(String taskId, DeadlineMarks marks) {
        update("update task_projection set due_at = ?, overdue_since = ?, escalate_at = ?, escalated_at = ?, final_at = ?"
                + " where task_id = ?", utc(marks.dueAt()), utc(marks.overdueSince()), utc(marks.escalateAt()), utc(marks.escalatedAt()),
                utc(marks.finalAt()), taskId);
    }

    /**
     * When the task reminds ({@code dueAt}), escalates and meets its final deadline by its deadline policy, and since
     * when it has been overdue and escalated (null: not yet).
     */
    record DeadlineMarks(Instant dueAt, Instant overdueSince, Instant escalateAt, Instant escalatedAt, Instant finalAt) {
    }

    /**
     * When the open task's step reminds, escalates and meets its final deadline by its deadline policy (null: never),
     * in the transaction that created it.
     */
    public void deadlines(String taskId, Instant remindAt, Instant escalateAt, Instant finalAt) {
        update("update task_projection set due_at = ?, escalate_at = ?, final_at = ? where task_id = ? and state = 'OPEN'",
                utc(remindAt), utc(escalateAt), utc(finalAt), taskId);
    }

    /**
     * Claims the reminder of a step: its open tasks not yet overdue are overdue from {@code since} on. Returns how many
     * it marked; 0 means another firing (a scan on another node, or an earlier version's timer) has reminded the step.
     */
    public int claimReminder(String processInstanceId, String step, Instant since) {
        return update("update task_projection set overdue_since = ? where process_instance_id = ? and task_definition_key = ?"
                + " and state = 'OPEN' and overdue_since is null", utc(since), processInstanceId, step);
    }

    /** Claims the escalation of a step, as {@link #claimReminder} claims its reminder. */
    public int claimEscalation(String processInstanceId, String step, Instant at) {
        return update("update task_projection set escalated_at = ? where process_instance_id = ? and task_definition_key = ?"
                + " and state = 'OPEN' and escalated_at is null", utc(at), processInstanceId, step);
    }

    /**
     * Claims the final deadline of a step the scan found passed: clears it on the step's open tasks, which the firing
     * then ends. 0 means another firing has ended the step already.
     */
    public int claimFinalDeadline(String processInstanceId, String step) {
        return update("update task_projection set final_at = null where process_instance_id = ? and task_definition_key = ?"
                + " and state = 'OPEN' and final_at is not null", processInstanceId, step);
    }

    /**
     * Steps with an open task whose reminder, escalation or final deadline was due by {@code now} and is not claimed yet,
     * the longest due first, at most {@code limit} of each kind; read from the partial indexes of V450 and V460. A step
     * whose final deadline has passed is listed for that alone: ending it makes its reminder moot.
     */
    public List<DueStep> dueSteps(Instant now, int limit) {
        List<DueStep> due = new ArrayList<>(dueSteps(DueStep.Kind.FINAL, "final_at", "", now, limit));
        due.addAll(dueSteps(DueStep.Kind.REMIND, "due_at", " and overdue_since is null", now, limit));
        due.addAll(dueSteps(DueStep.Kind.ESCALATE, "escalate_at", " and escalated_at is null", now, limit));
        Set<String> ending = due.stream().filter(step -> step.kind() == DueStep.Kind.FINAL).map(DueStep::processInstanceId)
                .collect(Collectors.toSet());
        return due.stream().filter(step -> step.kind() == DueStep.Kind.FINAL || !ending.contains(step.processInstanceId())).toList();
    }

    private List<DueStep> dueSteps(DueStep.Kind kind, String dueColumn, String unclaimed, Instant now, int limit) {
        String sql = "select application_id, process_instance_id, task_definition_key, min(task_name) task_name, min(" + dueColumn
                + ") due from task_projection where state = 'OPEN'" + unclaimed + " and " + dueColumn + " is not null and "
                + dueColumn + " <= ? group by application_id, process_instance_id, task_definition_key order by due fetch first "
                + limit + " rows only";
        return session().doReturningWork(connection -> {
            List<DueStep> steps = new ArrayList<>();
            try (PreparedStatement statement = prepare(connection, sql, utc(now)); ResultSet rs = statement.executeQuery()) {
                while (rs.next()) {
                    steps.add(new DueStep(kind, rs.getLong("application_id"), rs.getString("process_instance_id"),
                            rs.getString("task_definition_key"), rs.getString("task_name")));
                }
            }
            return steps;
        });
    }

    /** A step of one run whose reminder, escalation or final deadline is due (see {@link #dueSteps}). */
    public record DueStep(Kind kind, long applicationId, String processInstanceId, String step, String stepName) {

        public enum Kind { REMIND, ESCALATE, FINAL }
    }

    public Optional<TaskView> find(String taskId) {
        return query("select * from task_projection where task_id = ?", taskId).stream().findFirst();
    }

    /**
     * The open tasks of one process instance, oldest first. Kept exact by the engine listener inside
     * each command's transaction, so a view built from this reads the business database alone: under
     * XA that is one resource, which Atomikos commits in one phase with no PREPARE on either server.
     */
    public List<TaskView> openTasksOf(String processInstanceId) {
        return query("select * from task_projection where process_instance_id = ? and state = 'OPEN'"
                + " order by created_at, task_id", processInstanceId);
    }

    /**
     * Open tasks assigned to the user, or unclaimed and offered to one of their groups; newest first.
     * Each arm reads at most a page plus one from an ordered index — the user's own tasks from
     * ix_task_projection_todo_assignee, each group's offers from ix_task_offer_todo (one lateral arm per
     * group) — and the page is the newest of those: the cost grows with the page size and the number of
     * the user's groups, not with the number of open tasks.
     */
    TaskPage todo(String userId, Collection<String> groups, TaskFilter filter, String cursor, int size) {
        TaskProjectionDialect.Statement todo = todoStatement(dialect, userId, groups, filter, cursor, size);
        return page(readPage(todo), size, TaskView::createdAt);
    }

    /** The todo page's statement as {@link #todo} runs it; package-private so the bench can EXPLAIN the served SQL. */
    static TaskProjectionDialect.Statement todoStatement(TaskProjectionDialect dialect, String userId, Collection<String> groups,
            TaskFilter filter, String cursor, int size) {
        TaskCursor position = cursor == null ? null : TaskCursor.decode(cursor);
        // never the caller's own applications: whatever put such a task in reach, she does not decide it
        Query own = filtered(new Query(dialect, "p.state = 'OPEN' and p.assignee = ? and p.applicant_id <> ?", userId, userId),
                filter).after(position, "p.created_at", "p.task_id");
        Query offered = filtered(new Query(dialect, "p.applicant_id <> ?", userId), filter)
                .after(position, "o.created_at", "o.task_id");
        return dialect.todo(own.condition(), List.copyOf(groups), offered.condition(), Math.addExact(size, 1));
    }

    /** Tasks the user completed; latest first. */
    TaskPage done(String userId, TaskFilter filter, String cursor, int size) {
        TaskProjectionDialect.Statement done = doneStatement(dialect, userId, filter, cursor, size);
        return page(readPage(done), size, TaskView::endedAt);
    }

    /** The done page's statement as {@link #done} runs it (see {@link #todoStatement}). */
    static TaskProjectionDialect.Statement doneStatement(TaskProjectionDialect dialect, String userId, TaskFilter filter,
            String cursor, int size) {
        TaskCursor position = cursor == null ? null : TaskCursor.decode(cursor);
        Query query = filtered(new Query(dialect, "p.state = 'COMPLETED' and p.assignee = ?", userId), filter)
                .after(position, "p.ended_at", "p.task_id");
        return new TaskProjectionDialect.Statement("select p.* from task_projection p where " + query.where
                + " order by p.ended_at desc, p.task_id desc fetch first " + Math.addExact(size, 1) + " rows only", query.args);
    }

    private static Query filtered(Query query, TaskFilter filter) {
        return query.andIf(filter.businessType(), "p.business_type = ?")
                .andIf(filter.applicantId(), "p.applicant_id = ?")
                .andIf(filter.minAmount(), "p.amount >= ?")
                .andIf(filter.maxAmount(), "p.amount <= ?")
                .andIf(utc(filter.createdFrom()), "p.created_at >= ?")
                .andIf(utc(filter.createdBefore()), "p.created_at < ?");
    }

    /** The first {@code size} rows, and a cursor after the last of them when a further row was read. */
    private static TaskPage page(List<TaskView> rows, int size, Function<TaskView, Instant> sortKey) {
        if (rows.size() <= size) {
            return new TaskPage(rows, null);
        }
        TaskView last = rows.get(size - 1);
        return new TaskPage(rows.subList(0, size), new TaskCursor(sortKey.apply(last), last.id()).encode());
    }

    private int update(String sql, Object... args) {
        return session().doReturningWork(connection -> {
            try (PreparedStatement statement = prepare(connection, sql, args)) {
                return statement.executeUpdate();
            }
        });
    }

    private List<TaskView> query(String sql, Object... args) {
        return session().doReturningWork(connection -> rows(connection, sql, args));
    }

    private List<TaskView> readPage(TaskProjectionDialect.Statement page) {
        return reads.read(connection -> rows(connection, page.sql(), page.arguments().toArray()));
    }

    private List<TaskView> rows(Connection connection, String sql, Object... args) throws SQLException {
        List<TaskView> rows = new ArrayList<>();
        try (PreparedStatement statement = prepare(connection, sql, args); ResultSet rs = statement.executeQuery()) {
            while (rs.next()) {
                rows.add(view(rs));
            }
        }
        return rows;
    }

    private Session session() {
        // Pending JPA changes first, so statements here see what the use case has written so far.
        entityManager.flush();
        return entityManager.unwrap(Session.class);
    }

    private static PreparedStatement prepare(Connection connection, String sql, Object... args) throws SQLException {
        PreparedStatement statement = connection.prepareStatement(sql);
        for (int i = 0; i < args.length; i++) {
            statement.setObject(i + 1, args[i]);
        }
        return statement;
    }

    private TaskView view(ResultSet rs) throws SQLException {
        return new TaskView(rs.getString("task_id"), rs.getString("task_name"), rs.getString("task_definition_key"),
                rs.getString("process_instance_id"), rs.getString("state"), rs.getString("assignee"), rs.getString("owner"),
                rs.getString("delegation_state"), dialect.candidateGroups(rs), instant(rs, "created_at"),
                instant(rs, "ended_at"), rs.getString("business_type"), rs.getLong("application_id"),
                rs.getString("application_title"), rs.getString("applicant_id"), rs.getBigDecimal("amount"),
                instant(rs, "due_at"), rs.getObject("overdue_since") != null, instant(rs, "overdue_since"));
    }

    private static Instant instant(ResultSet rs, String column) throws SQLException {
        OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }

    static OffsetDateTime utc(Instant instant) {
        return instant == null ? null : instant.atOffset(ZoneOffset.UTC);
    }

    /** A where clause built only from the filters present, with its arguments in order. */
    private static final class Query {
        private final TaskProjectionDialect dialect;
        private final StringBuilder where;
        private final List<Object> args = new ArrayList<>();

        Query(TaskProjectionDialect dialect, String condition, Object... args) {
            this.dialect = dialect;
            this.where = new StringBuilder(condition);
            this.args.addAll(List.of(args));
        }

        Query and(String condition, Object... values) {
            where.append(" and ").append(condition);
            args.addAll(List.of(values));
            return this;
        }

        Query andIf(Object value, String condition) {
            return value == null ? this : and(condition, value);
        }

        /** Keyset: rows after the cursor in (sort column, task id) descending order. */
        Query after(TaskCursor position, String sortColumn, String taskIdColumn) {
            return position == null ? this
                    : and(dialect.keysetAfter(sortColumn, taskIdColumn),
                            dialect.keysetArguments(utc(position.at()), position.taskId()).toArray());
        }

        TaskProjectionDialect.Condition condition() {
            return new TaskProjectionDialect.Condition(where.toString(), args);
        }
    }
}
