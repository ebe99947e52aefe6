package dev.lockstep.approval.todo;

import java.util.List;

/**
 * The todo and done pages' statements exactly as the service builds them on PostgreSQL (no filters), for the bench's
 * EXPLAIN: the plan it prints is the served statement's, not a copy's.
 */
public final class ServedTaskStatements {

    private static final TaskFilter NO_FILTER = new TaskFilter(null, null, null, null, null, null);

    /** A statement and its arguments in order. */
    public record Statement(String sql, List<Object> arguments) {
    }

    private ServedTaskStatements() {
    }

    /** {@code cursor}: the page's cursor as the API returned it, or null for the first page. */
    public static Statement todo(String userId, List<String> groups, String cursor, int size) {
        return of(TaskProjection.todoStatement(TaskProjectionDialect.POSTGRESQL, userId, groups, NO_FILTER, cursor, size));
    }

    public static Statement done(String userId, String cursor, int size) {
        return of(TaskProjection.doneStatement(TaskProjectionDialect.POSTGRESQL, userId, NO_FILTER, cursor, size));
    }

    private static Statement of(TaskProjectionDialect.Statement statement) {
        return new Statement(statement.sql(), statement.arguments());
    }
}
