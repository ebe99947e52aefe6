package dev.lockstep.approval.todo;

import dev.lockstep.platform.DatabaseVendor;
import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * The projection's statements that differ by vendor. PostgreSQL keeps the candidate groups as a text[] and fills
 * task_offer by trigger (V207); Oracle keeps them as a comma-separated list and the projection writes task_offer itself,
 * in the same statement sequence (so the same XA branch) as the projection row. Everything else in
 * {@link TaskProjection} is SQL both accept.
 */
enum TaskProjectionDialect {

    POSTGRESQL {
        @Override
        String upsert() {
            return """
                    insert into task_projection (task_id, process_instance_id, task_definition_key, task_name, business_type,
                           application_id, applicant_id, application_title, amount, state, assignee, owner, delegation_state,
                           candidate_groups, created_at, ended_at, end_reason)
                    select ?, ?, ?, ?::varchar, a.business_type, a.id, a.applicant_id, a.title, a.amount, ?, ?::varchar, ?::varchar,
                           ?::varchar, string_to_array(?, ','), ?::timestamptz, ?::timestamptz, ?::varchar
                      from application a where a.id = ?
                    on conflict (task_id) do update set task_name = excluded.task_name, state = excluded.state,
                           assignee = excluded.assignee, owner = excluded.owner, delegation_state = excluded.delegation_state,
                           candidate_groups = excluded.candidate_groups, ended_at = excluded.ended_at, end_reason = excluded.end_reason
                    """;
        }

        @Override
        List<Statement> offerWrites(ProjectedTask task) {
            return List.of(); // the triggers of V207, in the upsert's own statement
        }

        @Override
        List<String> candidateGroups(ResultSet row) throws SQLException {
            Array groups = row.getArray("candidate_groups");
            return Arrays.asList((String[]) groups.getArray());
        }

        @Override
        String keysetAfter(String sortColumn, String taskIdColumn) {
            return "(" + sortColumn + ", " + taskIdColumn + ") < (?, ?)";
        }

        @Override
        List<Object> keysetArguments(Object sortValue, String taskId) {
            return List.of(sortValue, taskId);
        }

        /**
         * The groups are a VALUES list and the limits literals (a page size the controller bounds), so that PostgreSQL's
         * estimates of a generic plan match the custom ones and it keeps one generic plan per pooled connection: with
         * the groups in one array parameter it planned every request anew (about half a millisecond, as long as running
         * it; docs/performance.md).
         */
        @Override
        Statement todo(Condition own, List<String> groups, Condition offered, int limit) {
            String offeredArm = groups.isEmpty() ? "" : """
                            union all
                            (select arm.* from (values %s) as offered_to(group_id) cross join lateral (
                                select p.* from task_offer o join task_projection p on p.task_id = o.task_id
                                 where o.group_id = offered_to.group_id and %s
                                 order by o.created_at desc, o.task_id desc limit %d) arm)
                    """.formatted(String.join(", ", Collections.nCopies(groups.size(), "(?)")), offered.where(), limit);
            // Each arm returns the rows it already read, so none is looked up twice. The arms are disjoint but for a
            // task offered to two of the caller's groups (own tasks are assigned, offered ones unclaimed):
            // task_offer.created_at is the row's own (V207's trigger), so its copies sort next to each other and
            // "distinct on" keeps one.
            String sql = """
                    select distinct on (created_at, task_id) * from (
                        (select p.* from task_projection p where %s
                          order by p.created_at desc, p.task_id desc limit %d)
                    %s) arms order by created_at desc, task_id desc limit %d
                    """.formatted(own.where(), limit, offeredArm, limit);
            List<Object> arguments = new ArrayList<>(own.arguments());
            if (!groups.isEmpty()) {
                arguments.addAll(groups);
                arguments.addAll(offered.arguments());
            }
            return new Statement(sql, arguments);
        }
    },

    /**
     * MERGE for the upsert; task_offer written here; a keyset as two comparisons (Oracle has no row-value
     * less-than); one inline view per group instead of a lateral join over a VALUES list.
     */
    ORACLE {
        @Override
        String upsert() {
            return """
                    merge into task_projection t
                    using (select ? task_id, ? process_instance_id, ? task_definition_key, ? task_name, a.business_type,
                                  a.id application_id, a.applicant_id, a.title application_title, a.amount, ? state,
                                  ? assignee, ? owner, ? delegation_state, ? candidate_groups, ? created_at, ? ended_at,
                                  ? end_reason
                             from application a where a.id = ?) n
                       on (t.task_id = n.task_id)
                     when matched then update set t.task_name = n.task_name, t.state = n.state, t.assignee = n.assignee,
                          t.owner = n.owner, t.delegation_state = n.delegation_state, t.candidate_groups = n.candidate_groups,
                          t.ended_at = n.ended_at, t.end_reason = n.end_reason
                     when not matched then insert (task_id, process_instance_id, task_definition_key, task_name,
                          business_type, application_id, applicant_id, application_title, amount, state, assignee, owner,
                          delegation_state, candidate_groups, created_at, ended_at, end_reason)
                          values (n.task_id, n.process_instance_id, n.task_definition_key, n.task_name, n.business_type,
                                  n.application_id, n.applicant_id, n.application_title, n.amount, n.state, n.assignee,
                                  n.owner, n.delegation_state, n.candidate_groups, n.created_at, n.ended_at, n.end_reason)
                    """;
        }

        /** What V207's trigger does on PostgreSQL: one row per group of an open, unclaimed task, none otherwise. */
        @Override
        List<Statement> offerWrites(ProjectedTask task) {
            List<Statement> writes = new ArrayList<>();
            writes.add(new Statement("delete from task_offer where task_id = ?", List.of(task.taskId())));
            if (task.state() == ProjectedTask.TaskState.OPEN && task.assignee() == null) {
                task.candidateGroups().stream().distinct().forEach(group -> writes.add(new Statement(
                        "insert into task_offer (task_id, group_id, created_at) values (?, ?, ?)",
                        List.of(task.taskId(), group, TaskProjection.utc(task.createdAt())))));
            }
            return writes;
        }

        /** Oracle reads an empty string as null: no groups. */
        @Override
        List<String> candidateGroups(ResultSet row) throws SQLException {
            String groups = row.getString("candidate_groups");
            return groups == null ? List.of() : List.of(groups.split(","));
        }

        @Override
        String keysetAfter(String sortColumn, String taskIdColumn) {
            return "(" + sortColumn + " < ? or (" + sortColumn + " = ? and " + taskIdColumn + " < ?))";
        }

        @Override
        List<Object> keysetArguments(Object sortValue, String taskId) {
            return List.of(sortValue, sortValue, taskId);
        }

        @Override
        Statement todo(Condition own, List<String> groups, Condition offered, int limit) {
            StringBuilder sql = new StringBuilder("select p.* from task_projection p join (select task_id from (")
                    .append("select p.task_id from task_projection p where ").append(own.where())
                    .append(" order by p.created_at desc, p.task_id desc fetch first ").append(limit).append(" rows only)");
            List<Object> arguments = new ArrayList<>(own.arguments());
            for (String group : groups) {
                sql.append(" union select task_id from (select o.task_id from task_offer o join task_projection p")
                        .append(" on p.task_id = o.task_id where o.group_id = ? and ").append(offered.where())
                        .append(" order by o.created_at desc, o.task_id desc fetch first ").append(limit).append(" rows only)");
                arguments.add(group);
                arguments.addAll(offered.arguments());
            }
            sql.append(") candidates on candidates.task_id = p.task_id order by p.created_at desc, p.task_id desc fetch first ")
                    .append(limit).append(" rows only");
            return new Statement(sql.toString(), arguments);
        }
    };

    /** A statement and its arguments in order. */
    record Statement(String sql, List<Object> arguments) {
    }

    /** A where clause and its arguments in order. */
    record Condition(String where, List<Object> arguments) {
    }

    /** Values: task, process instance, definition key, name, state, assignee, owner, delegation, groups (joined by
     * commas), created, ended, end reason, application id. */
    abstract String upsert();

    /** The task_offer writes that follow the upsert of {@code task}. */
    abstract List<Statement> offerWrites(ProjectedTask task);

    abstract List<String> candidateGroups(ResultSet row) throws SQLException;

    /** Rows after the cursor in (sort column, task id) descending order. */
    abstract String keysetAfter(String sortColumn, String taskIdColumn);

    abstract List<Object> keysetArguments(Object sortValue, String taskId);

    /**
     * Open tasks assigned to the user ({@code own}), or unclaimed and offered to one of {@code groups} ({@code offered},
     * for one group's offers joined to their projection rows {@code p}); newest first, at most {@code limit}.
     */
    abstract Statement todo(Condition own, List<String> groups, Condition offered, int limit);

    static TaskProjectionDialect of(DatabaseVendor vendor) {
        return vendor == DatabaseVendor.ORACLE ? ORACLE : POSTGRESQL;
    }
}
