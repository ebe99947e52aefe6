package dev.lockstep.reconciliation;

import dev.lockstep.approval.Application;
import dev.lockstep.reconciliation.Evidence.Binding;
import dev.lockstep.reconciliation.Evidence.EndedInstance;
import dev.lockstep.reconciliation.Evidence.Instance;
import dev.lockstep.reconciliation.Evidence.Job;
import dev.lockstep.reconciliation.Evidence.OutboxEvent;
import dev.lockstep.reconciliation.Evidence.StuckCommand;
import dev.lockstep.reconciliation.Evidence.Task;
import dev.lockstep.workflow.ApprovalProcess;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.activiti.engine.HistoryService;
import org.activiti.engine.ManagementService;
import org.activiti.engine.RuntimeService;
import org.activiti.engine.TaskService;
import org.activiti.engine.history.HistoricProcessInstance;
import org.activiti.engine.history.HistoricVariableInstance;
import org.activiti.engine.runtime.ProcessInstance;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Gathers an application's {@link Evidence}: business rows with plain SQL on the connection it is given
 * (a non-XA one for a scan, the repair's own XA branch for a re-check), the workflow side only through
 * the engine's query API by business key, and ended runs whose history was archived from the archive.
 */
class EvidenceReader {

    private final RuntimeService runtime;
    private final HistoryService history;
    private final TaskService tasks;
    private final ManagementService management;
    private final ReconciliationProperties settings;
    private final Clock clock;

    EvidenceReader(RuntimeService runtime, HistoryService history, TaskService tasks, ManagementService management,
            ReconciliationProperties settings, Clock clock) {
        this.runtime = runtime;
        this.history = history;
        this.tasks = tasks;
        this.management = management;
        this.settings = settings;
        this.clock = clock;
    }

    private record Row(String status, String processInstanceId, String processDefinitionId, int lifecycleNo, Instant updatedAt,
            String publishStatus) {
    }

    /** Empty when there is no such application. */
    Optional<Evidence> read(JdbcTemplate business, long applicationId) {
        List<Row> rows = business.query("""
                select approval_status, process_instance_id, process_definition_id, lifecycle_no, updated_at, publish_status
                  from application where id = ?
                """, (rs, n) -> new Row(rs.getString(1), rs.getString(2), rs.getString(3), rs.getInt(4),
                rs.getTimestamp(5).toInstant(), rs.getString(6)), applicationId);
        if (rows.isEmpty()) {
            return Optional.empty();
        }
        Row application = rows.get(0);
        String key = Long.toString(applicationId);
        List<Binding> bindings = business.query("""
                select process_instance_id, binding_status, lifecycle_no from business_process_binding
                 where business_type = ? and business_id = ? order by lifecycle_no, id
                """, (rs, n) -> new Binding(rs.getString(1), rs.getString(2), rs.getInt(3)), Application.BUSINESS_TYPE, key);
        List<String> decisions = business.queryForList(
                "select decision from approval_record where application_id = ? and lifecycle_no = ? order by decided_at",
                String.class, applicationId, application.lifecycleNo());
        List<StuckCommand> stuck = business.query("""
                select request_id, command_type, created_at from workflow_command
                 where business_type = ? and business_id = ? and command_status = 'PROCESSING' and created_at < ?
                 order by created_at
                """, (rs, n) -> new StuckCommand(rs.getString(1), rs.getString(2), rs.getTimestamp(3).toInstant()),
                Application.BUSINESS_TYPE, key, Timestamp.from(clock.instant().minus(settings.commandSla())));
        List<Task> projected = business.query("""
                select task_id, process_instance_id, task_definition_key, assignee from task_projection
                 where application_id = ? and state = 'OPEN' order by task_id
                """, (rs, n) -> new Task(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4)), applicationId);

        List<Instance> active = new ArrayList<>();
        List<Job> jobs = new ArrayList<>();
        for (ProcessInstance instance : runtime.createProcessInstanceQuery().processInstanceBusinessKey(key)
                .orderByProcessInstanceId().asc().list()) {
            int executions = (int) runtime.createExecutionQuery().processInstanceId(instance.getId()).count();
            active.add(new Instance(instance.getId(), instance.getProcessDefinitionId(),
                    instance.getProcessDefinitionVersion() == null ? 0 : instance.getProcessDefinitionVersion(),
                    instance.isSuspended(), executions));
            jobs.addAll(jobsOf(instance.getId()));
        }
        List<EndedInstance> ended = new ArrayList<>(history.createHistoricProcessInstanceQuery().processInstanceBusinessKey(key)
                .finished().list().stream().map(this::ended).toList());
        // an archived run has ended too: its history moved to the business database, it is not missing
        ended.addAll(business.query("""
                select process_instance_id, process_definition_id, end_time, delete_reason, outcome from archived_process
                 where business_key = ?
                """, (rs, n) -> new EndedInstance(rs.getString(1), rs.getString(2), rs.getTimestamp(3).toInstant(), rs.getString(4),
                rs.getString(5)), key));
        ended.sort(Comparator.comparing(EndedInstance::id));
        List<Task> open = tasks.createTaskQuery().processInstanceBusinessKey(key).orderByTaskId().asc().list().stream()
                .map(task -> new Task(task.getId(), task.getProcessInstanceId(), task.getTaskDefinitionKey(), task.getAssignee()))
                .toList();
        return Optional.of(new Evidence(applicationId, application.status(), application.processInstanceId(),
                application.processDefinitionId(), application.lifecycleNo(), application.updatedAt(), bindings, decisions,
                stuck, active, ended, open, jobs, projected, publication(business, key, application.publishStatus())));
    }

    /** The outbox rows of the application; the catalog is not asked here (this may run inside a repair's transaction). */
    private Evidence.Publication publication(JdbcTemplate business, String key, String publishStatus) {
        List<OutboxEvent> events = business.query("""
                select event_id, event_type, event_status, retry_count, next_retry_at, lease_until, last_error_code, updated_at
                  from outbox_event where aggregate_type = ? and aggregate_id = ? order by created_at, event_id
                """, (rs, n) -> new OutboxEvent(rs.getString(1), rs.getString(2), rs.getString(3), rs.getInt(4),
                rs.getTimestamp(5).toInstant(), toInstant(rs.getTimestamp(6)), rs.getString(7), rs.getTimestamp(8).toInstant()),
                Application.BUSINESS_TYPE, key);
        return new Evidence.Publication(publishStatus, events, Map.of(), clock.instant().minus(settings.outboxSla()));
    }

    private List<Job> jobsOf(String processInstanceId) {
        List<Job> jobs = new ArrayList<>();
        management.createJobQuery().processInstanceId(processInstanceId).list()
                .forEach(job -> jobs.add(new Job(job.getId(), processInstanceId, "EXECUTABLE")));
        management.createTimerJobQuery().processInstanceId(processInstanceId).list()
                .forEach(job -> jobs.add(new Job(job.getId(), processInstanceId, "TIMER")));
        management.createSuspendedJobQuery().processInstanceId(processInstanceId).list()
                .forEach(job -> jobs.add(new Job(job.getId(), processInstanceId, "SUSPENDED")));
        management.createDeadLetterJobQuery().processInstanceId(processInstanceId).list()
                .forEach(job -> jobs.add(new Job(job.getId(), processInstanceId, "DEAD_LETTER")));
        return jobs;
    }

    private EndedInstance ended(HistoricProcessInstance instance) {
        HistoricVariableInstance outcome = history.createHistoricVariableInstanceQuery().processInstanceId(instance.getId())
                .variableName(ApprovalProcess.OUTCOME).singleResult();
        return new EndedInstance(instance.getId(), instance.getProcessDefinitionId(), toInstant(instance.getEndTime()),
                instance.getDeleteReason(), outcome == null ? null : String.valueOf(outcome.getValue()));
    }

    private static Instant toInstant(Date date) {
        return date == null ? null : date.toInstant();
    }

    private static Instant toInstant(Timestamp timestamp) {
        return timestamp == null ? null : timestamp.toInstant();
    }
}
