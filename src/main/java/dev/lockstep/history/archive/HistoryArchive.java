package dev.lockstep.history.archive;

import dev.lockstep.platform.AreaApi;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.hibernate.Session;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;
import org.springframework.stereotype.Repository;

/**
 * The archived engine history in the business database (archived_* tables): what history archival
 * moved out of the engine, and what readers fall back to once a process is no longer in the engine's
 * history. Statements run on Hibernate's connection of the business XA DataSource, so inside a JTA
 * transaction they are the same branch as the rest of its business work (see todo.TaskProjection).
 */
@Repository
@AreaApi
public class HistoryArchive {

    /** The one control row: archival's pause switch and the lock that lets one batch run at a time. */
    public record Control(boolean paused, String changedBy, Instant changedAt, String reason) {
    }

    @PersistenceContext
    private EntityManager entityManager;

    /**
     * Locks the control row until the transaction ends and returns it: every archival batch takes it
     * first, so batches never overlap, and a reader that must not miss a process moving between history
     * and archive (the projection's rewrite of an application) takes it to wait for a batch in flight.
     */
    public Control lockControl() {
        return control(" for update");
    }

    /** The control row as committed, without waiting for a batch in flight. */
    public Control control() {
        return control("");
    }

    private Control control(String lock) {
        return sql(business -> business.queryForObject(
                "select paused, changed_by, changed_at, reason from history_archival_control where id = 1" + lock,
                (rs, n) -> new Control(rs.getBoolean(1), rs.getString(2), instant(rs.getObject(3, OffsetDateTime.class)),
                        rs.getString(4))));
    }

    public void setPaused(boolean paused, String actor, Instant at, String reason) {
        sql(business -> business.update("update history_archival_control set paused = ?, changed_by = ?, changed_at = ?, reason = ?"
                + " where id = 1", paused, actor, utc(at), reason));
    }

    /** Stores one process with all its rows; a process archived before fails on its primary key, never doubles. */
    public void write(ArchivedProcess process, Instant archivedAt) {
        String id = process.processInstanceId();
        sql(business -> {
            business.update("""
                    insert into archived_process (process_instance_id, business_key, process_definition_id, start_user_id,
                           start_time, end_time, delete_reason, outcome, archived_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, id, process.businessKey(), process.processDefinitionId(), process.startUserId(),
                    utc(process.startTime()), utc(process.endTime()), process.deleteReason(), process.outcome(), utc(archivedAt));
            business.batchUpdate("""
                    insert into archived_activity (id, process_instance_id, activity_id, activity_name, activity_type, assignee,
                           task_id, start_time, end_time, delete_reason) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, process.activities().stream().map(a -> new Object[] {a.id(), id, a.activityId(), a.activityName(),
                    a.activityType(), a.assignee(), a.taskId(), utc(a.startTime()), utc(a.endTime()), a.deleteReason()}).toList());
            business.batchUpdate("""
                    insert into archived_task (task_id, process_instance_id, task_definition_key, task_name, assignee, owner,
                           create_time, end_time, delete_reason) values (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, process.tasks().stream().map(t -> new Object[] {t.taskId(), id, t.taskDefinitionKey(), t.name(),
                    t.assignee(), t.owner(), utc(t.createTime()), utc(t.endTime()), t.deleteReason()}).toList());
            business.batchUpdate("""
                    insert into archived_variable (id, process_instance_id, task_id, variable_name, type_name, text_value)
                    values (?, ?, ?, ?, ?, ?)
                    """, process.variables().stream().map(v -> new Object[] {v.id(), id, v.taskId(), v.name(), v.typeName(),
                    v.textValue()}).toList());
            return business.batchUpdate("""
                    insert into archived_identity_link (id, process_instance_id, task_id, link_type, user_id, group_id)
                    values (?, ?, ?, ?, ?, ?)
                    """, process.identityLinks().stream().map(l -> new Object[] {l.id(), id, l.taskId(), l.type(), l.userId(),
                    l.groupId()}).toList());
        });
    }

    /** True when the task belongs to an archived process: it existed and has ended. */
    public boolean hasTask(String taskId) {
        return sql(business -> business.queryForObject("select count(*) from archived_task where task_id = ?", Integer.class,
                taskId)) > 0;
    }

    /** The archived tasks of the processes run for {@code businessKey}, for a rewrite of that application's task projection. */
    public List<ArchivedProcess.Task> tasksOf(String businessKey) {
        return sql(business -> business.query("""
                select t.task_id, t.process_instance_id, t.task_definition_key, t.task_name, t.assignee, t.owner, t.create_time,
                       t.end_time, t.delete_reason
                  from archived_task t join archived_process p on p.process_instance_id = t.process_instance_id
                 where p.business_key = ?
                 order by t.task_id
                """, (rs, n) -> new ArchivedProcess.Task(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
                rs.getString(5), rs.getString(6), instant(rs.getObject(7, OffsetDateTime.class)),
                instant(rs.getObject(8, OffsetDateTime.class)), rs.getString(9)), businessKey));
    }

    /** The explicit outcome an archived process recorded at its end; empty when it is not archived or recorded none. */
    public Optional<String> outcome(String processInstanceId) {
        return sql(business -> business.queryForList("select outcome from archived_process where process_instance_id = ?",
                String.class, processInstanceId)).stream().filter(Objects::nonNull).findFirst();
    }

    public long processCount() {
        return sql(business -> business.queryForObject("select count(*) from archived_process", Long.class));
    }

    private <T> T sql(Function<JdbcTemplate, T> statements) {
        // the connection is Hibernate's to release
        return entityManager.unwrap(Session.class).doReturningWork(
                connection -> statements.apply(new JdbcTemplate(new SingleConnectionDataSource(connection, true))));
    }

    private static OffsetDateTime utc(Instant instant) {
        return instant == null ? null : instant.atOffset(ZoneOffset.UTC);
    }

    private static Instant instant(OffsetDateTime time) {
        return time == null ? null : time.toInstant();
    }
}
