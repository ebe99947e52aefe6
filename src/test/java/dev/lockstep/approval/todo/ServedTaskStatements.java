package dev.lockstep.approval.todo;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * The todo and done pages' statements exactly as the service builds them on PostgreSQL (no filters), for the bench's
 * EXPLAIN: the plan it prints is the served statement's, not a copy's.
 */
public final class ServedTaskStatements {

    private static final TaskFilter NO_FILTER = new TaskFilter(null, null, null, null, null, null);

    private ServedTaskStatements() {
    }

    /** {@code cursor}: the page's cursor as the API returned it, or null for the first page. */
    public static String explainTodo(Connection db, String userId, List<String> groups, String cursor, int size)
            throws SQLException {
        return explain(db, TaskProjection.todoStatement(TaskProjectionDialect.POSTGRESQL, userId, groups, NO_FILTER, cursor, size));
    }

    public static String explainDone(Connection db, String userId, String cursor, int size) throws SQLException {
        return explain(db, TaskProjection.doneStatement(TaskProjectionDialect.POSTGRESQL, userId, NO_FILTER, cursor, size));
    }

    /** {@code EXPLAIN (ANALYZE, BUFFERS)} of the statement with its arguments, one plan line per line. */
    private static String explain(Connection db, TaskProjectionDialect.Statement served) throws SQLException {
        StringBuilder plan = new StringBuilder();
        try (PreparedStatement statement = db.prepareStatement("explain (analyze, buffers) " + served.sql())) {
            for (int i = 0; i < served.arguments().size(); i++) {
                statement.setObject(i + 1, served.arguments().get(i));
            }
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    plan.append(rows.getString(1)).append('\n');
                }
            }
        }
        return plan.toString();
    }
}
