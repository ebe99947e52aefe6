package dev.lockstep.reconciliation;

import dev.lockstep.approval.Application;
import dev.lockstep.publishing.delivery.PayloadDigest;
import dev.lockstep.publishing.outbox.Outbox;
import dev.lockstep.reconciliation.Evidence.Binding;
import dev.lockstep.reconciliation.Evidence.EndedInstance;
import dev.lockstep.reconciliation.Evidence.Instance;
import dev.lockstep.reconciliation.Evidence.Job;
import dev.lockstep.reconciliation.Evidence.OutboxEvent;
import dev.lockstep.reconciliation.Evidence.StuckCommand;
import dev.lockstep.reconciliation.Evidence.Task;
import dev.lockstep.transactions.workflow.ActionFence;
import dev.lockstep.transactions.workflow.ApprovalProcess;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.Date;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.activiti.engine.HistoryService;
import org.activiti.engine.ManagementService;
import org.activiti.engine.RuntimeService;
import org.activiti.engine.TaskService;
import org.activiti.engine.history.HistoricProcessInstance;
import org.activiti.engine.history.HistoricVariableInstance;
import org.activiti.engine.runtime.ProcessInstance;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Gathers applications' {@link Evidence}: business rows with plain SQL on the connection it is given (a non-XA one for a
 * scan, the repair's own XA branch for a re-check), the workflow side through the engine's query API, and ended runs
 * whose history was archived from the archive. The workflow side is read first: an action that commits between the two
 * reads moves the application's {@code updated_at}, which the run's settle time then skips, instead of showing half of it.
 *
 * <p>Two ways, one result: {@link #read} one application, by business key through the engine's API (what a repair
 * re-checks inside its XA transaction); {@link #readPage} a run's page of applications with one query per kind of
 * evidence for the whole page. The engine's API takes no set of business keys, so a page first finds its process
 * instance ids with read-only SELECTs on {@code ACT_RU_EXECUTION} and {@code ACT_HI_PROCINST}, then asks the API by
 * those ids; execution counts and the four job tables, which the API queries only one instance at a time, are read the
 * same plain way. These SELECTs run on a read-only, non-XA workflow connection and never write.
 */
class EvidenceReader {

    private final RuntimeService runtime;
    private final HistoryService history;
    private final TaskService tasks;
    private final ManagementService management;
    private final JdbcTemplate workflow;
    private final ReconciliationProperties settings;
    private final Clock clock;

    /** @param workflow plain, read-only reads of the workflow database for {@link #readPage} */
    EvidenceReader(RuntimeService runtime, HistoryService history, TaskService tasks, ManagementService management,
            JdbcTemplate workflow, ReconciliationProperties settings, Clock clock) {
        this.runtime = runtime;
        this.history = history;
        this.tasks = tasks;
        this.management = management;
        this.workflow = workflow;
        this.settings = settings;
        this.clock = clock;
    }

    /** What the engine holds for one business key; the archive's ended runs are added from the business side. */
    private record EngineSide(List<Instance> active, List<Job> jobs, List<EndedInstance> ended, List<Task> open) {
        static final EngineSide NONE = new EngineSide(List.of(), List.of(), List.of(), List.of());
    }

    private record Row(long id, String status, String processInstanceId, String processDefinitionId, int lifecycleNo,
            long actionSeq, Instant updatedAt, String publishStatus) {
    }

    /** Empty when there is no such application. */
    Optional<Evidence> read(JdbcTemplate business, long applicationId) {
        String key = Long.toString(applicationId);
        EngineSide engine = engineByKey(key);
        return Optional.ofNullable(assemble(business, List.of(applicationId), Map.of(key, engine)).get(applicationId));
    }

    /** The evidence of each of {@code applicationIds} that exists, by id, as {@link #read} would give it one by one. */
    Map<Long, Evidence> readPage(JdbcTemplate business, List<Long> applicationIds) {
        if (applicationIds.isEmpty()) {
            return Map.of();
        }
        return assemble(business, applicationIds, enginePage(applicationIds.stream().map(String::valueOf).toList()));
    }

    /** {@code ?, ?, ...}: the markers of an {@code in} list of {@code count} values (a page is at most 1,000: Oracle's limit). */
    static String markers(int count) {
        return String.join(", ", Collections.nCopies(count, "?"));
    }

    private EngineSide engineByKey(String key) {
        List<Instance> active = new ArrayList<>();
        List<Job> jobs = new ArrayList<>();
        for (ProcessInstance instance : runtime.createProcessInstanceQuery().processInstanceBusinessKey(key)
                .orderByProcessInstanceId().asc().list()) {
            active.add(instance(instance, (int) runtime.createExecutionQuery().processInstanceId(instance.getId()).count(),
                    ActionFence.countsHeld(runtime, Set.of(instance.getId())).get(instance.getId())));
            jobs.addAll(jobsOf(instance.getId()));
        }
        List<HistoricProcessInstance> ended = history.createHistoricProcessInstanceQuery().processInstanceBusinessKey(key).finished().list();
        List<EndedInstance> endedRuns = ended.stream().map(instance -> ended(instance, outcomeOf(instance.getId()))).toList();
        List<Task> open = tasks.createTaskQuery().processInstanceBusinessKey(key).orderByTaskId().asc().list().stream()
                .map(EvidenceReader::task).toList();
        return new EngineSide(active, jobs, endedRuns, open);
    }

    private String outcomeOf(String processInstanceId) {
        HistoricVariableInstance outcome = history.createHistoricVariableInstanceQuery().processInstanceId(processInstanceId)
                .variableName(ApprovalProcess.OUTCOME).singleResult();
        return outcome == null ? null : String.valueOf(outcome.getValue());
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

    /**
     * The engine side of a page of business keys: two SELECTs find the keys' process instances (none for most keys: a
     * draft, or a run whose history was archived), then one API query per kind over those ids.
     */
    private Map<String, EngineSide> enginePage(List<String> keys) {
        // instance id -> business key, in instance id order as the API's by-key queries give them
        Map<String, String> runningKeys = instanceKeys("""
                select ID_, BUSINESS_KEY_ from ACT_RU_EXECUTION where PARENT_ID_ is null and BUSINESS_KEY_ in (%s) order by ID_
                """, keys);
        Map<String, String> endedKeys = instanceKeys("""
                select ID_, BUSINESS_KEY_ from ACT_HI_PROCINST where END_TIME_ is not null and BUSINESS_KEY_ in (%s) order by ID_
                """, keys);
        if (runningKeys.isEmpty() && endedKeys.isEmpty()) {
            return Map.of();
        }
        Map<String, List<Instance>> active = new HashMap<>();
        Map<String, List<Job>> jobs = new HashMap<>();
        Map<String, List<Task>> open = new HashMap<>();
        if (!runningKeys.isEmpty()) {
            Map<String, Integer> executions = executionCounts(runningKeys.keySet());
            Map<String, List<Job>> jobsByInstance = jobsOf(runningKeys.keySet());
            Map<String, Long> actionSeqs = ActionFence.countsHeld(runtime, runningKeys.keySet());
            for (ProcessInstance instance : runtime.createProcessInstanceQuery().processInstanceIds(runningKeys.keySet())
                    .orderByProcessInstanceId().asc().list()) {
                String key = runningKeys.get(instance.getId());
                active.computeIfAbsent(key, k -> new ArrayList<>()).add(instance(instance, executions.getOrDefault(instance.getId(), 0),
                        actionSeqs.get(instance.getId())));
                jobs.computeIfAbsent(key, k -> new ArrayList<>()).addAll(jobsByInstance.getOrDefault(instance.getId(), List.of()));
            }
            tasks.createTaskQuery().processInstanceIdIn(List.copyOf(runningKeys.keySet())).orderByTaskId().asc().list()
                    .forEach(task -> open.computeIfAbsent(runningKeys.get(task.getProcessInstanceId()), k -> new ArrayList<>())
                            .add(task(task)));
        }
        Map<String, List<EndedInstance>> ended = new HashMap<>();
        if (!endedKeys.isEmpty()) {
            Map<String, String> outcomes = new HashMap<>();
            // the outcome is a process variable: its execution is the process instance itself
            history.createHistoricVariableInstanceQuery().executionIds(endedKeys.keySet()).variableName(ApprovalProcess.OUTCOME).list()
                    .forEach(variable -> outcomes.put(variable.getProcessInstanceId(), String.valueOf(variable.getValue())));
            history.createHistoricProcessInstanceQuery().processInstanceIds(endedKeys.keySet()).finished().list()
                    .forEach(instance -> ended.computeIfAbsent(endedKeys.get(instance.getId()), k -> new ArrayList<>())
                            .add(ended(instance, outcomes.get(instance.getId()))));
        }
        Map<String, EngineSide> page = new HashMap<>();
        for (String key : new LinkedHashSet<>(keys)) {
            page.put(key, new EngineSide(active.getOrDefault(key, List.of()), jobs.getOrDefault(key, List.of()),
                    ended.getOrDefault(key, List.of()), open.getOrDefault(key, List.of())));
        }
        return page;
    }

    private Map<String, String> instanceKeys(String sql, Collection<String> keys) {
        Map<String, String> found = new LinkedHashMap<>();
        workflow.query(sql.formatted(markers(keys.size())), rs -> {
            found.put(rs.getString(1), rs.getString(2));
        }, keys.toArray());
        return found;
    }

    private Map<String, Integer> executionCounts(Set<String> processInstanceIds) {
        Map<String, Integer> counts = new HashMap<>();
        workflow.query("select PROC_INST_ID_, count(distinct ID_) from ACT_RU_EXECUTION where PROC_INST_ID_ in (%s) group by PROC_INST_ID_"
                .formatted(markers(processInstanceIds.size())), rs -> {
                    counts.put(rs.getString(1), rs.getInt(2));
                }, processInstanceIds.toArray());
        return counts;
    }

    /** Each instance's jobs in the order {@link #jobsOf(String)} gives them: executable, timer, suspended, dead-letter, by id. */
    private Map<String, List<Job>> jobsOf(Set<String> processInstanceIds) {
        String in = markers(processInstanceIds.size());
        List<Object> ids = new ArrayList<>();
        for (int table = 0; table < 4; table++) {
            ids.addAll(processInstanceIds);
        }
        return workflow.query("""
                select ID_, PROCESS_INSTANCE_ID_, 'EXECUTABLE', 1 from ACT_RU_JOB where PROCESS_INSTANCE_ID_ in (%1$s)
                union all select ID_, PROCESS_INSTANCE_ID_, 'TIMER', 2 from ACT_RU_TIMER_JOB where PROCESS_INSTANCE_ID_ in (%1$s)
                union all select ID_, PROCESS_INSTANCE_ID_, 'SUSPENDED', 3 from ACT_RU_SUSPENDED_JOB where PROCESS_INSTANCE_ID_ in (%1$s)
                union all select ID_, PROCESS_INSTANCE_ID_, 'DEAD_LETTER', 4 from ACT_RU_DEADLETTER_JOB where PROCESS_INSTANCE_ID_ in (%1$s)
                order by 4, 1
                """.formatted(in), (rs, n) -> new Job(rs.getString(1), rs.getString(2), rs.getString(3)), ids.toArray())
                .stream().collect(Collectors.groupingBy(Job::processInstanceId, LinkedHashMap::new, Collectors.toList()));
    }

    /** The business side of {@code ids} with one query per kind, joined to {@code engine} (by business key; absent: none). */
    private Map<Long, Evidence> assemble(JdbcTemplate business, List<Long> ids, Map<String, EngineSide> engine) {
        String in = markers(ids.size());
        Object[] numbers = ids.toArray();
        Object[] keys = ids.stream().map(String::valueOf).toArray();
        List<Row> applications = business.query("""
                select id, approval_status, process_instance_id, process_definition_id, lifecycle_no, action_seq, updated_at,
                       publish_status
                  from application where id in (%s) order by id
                """.formatted(in), (rs, n) -> new Row(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getInt(5),
                rs.getLong(6), rs.getTimestamp(7).toInstant(), rs.getString(8)), numbers);
        if (applications.isEmpty()) {
            return Map.of();
        }
        Map<String, List<Binding>> bindings = byKey(business.query("""
                select business_id, process_instance_id, binding_status, lifecycle_no from business_process_binding
                 where business_type = ? and business_id in (%s) order by lifecycle_no, id
                """.formatted(in), (rs, n) -> Map.entry(rs.getString(1), new Binding(rs.getString(2), rs.getString(3), rs.getInt(4))),
                arguments(Application.BUSINESS_TYPE, keys)));
        // every lifecycle's decisions; each application keeps those of its current lifecycle
        Map<String, List<Map.Entry<Integer, String>>> decisions = byKey(business.query("""
                select application_id, lifecycle_no, decision from approval_record where application_id in (%s) order by decided_at, id
                """.formatted(in), (rs, n) -> Map.entry(rs.getString(1), Map.entry(rs.getInt(2), rs.getString(3))), numbers));
        Map<String, List<StuckCommand>> stuck = byKey(business.query("""
                select business_id, request_id, command_type, created_at from workflow_command
                 where business_type = ? and business_id in (%s) and command_status = 'PROCESSING' and created_at < ?
                 order by created_at, request_id
                """.formatted(in), (rs, n) -> Map.entry(rs.getString(1), new StuckCommand(rs.getString(2), rs.getString(3),
                rs.getTimestamp(4).toInstant())), arguments(Application.BUSINESS_TYPE, keys,
                Timestamp.from(clock.instant().minus(settings.commandSla())))));
        Map<String, List<Task>> projected = byKey(business.query("""
                select application_id, task_id, process_instance_id, task_definition_key, assignee, owner, delegation_state
                  from task_projection where application_id in (%s) and state = 'OPEN' order by task_id
                """.formatted(in), (rs, n) -> Map.entry(rs.getString(1), new Task(rs.getString(2), rs.getString(3), rs.getString(4),
                rs.getString(5), rs.getString(6), rs.getString(7))), numbers));
        // an archived run has ended too: its history moved to the business database, it is not missing
        Map<String, List<EndedInstance>> archived = byKey(business.query("""
                select business_key, process_instance_id, process_definition_id, end_time, delete_reason, outcome from archived_process
                 where business_key in (%s)
                """.formatted(in), (rs, n) -> Map.entry(rs.getString(1), new EndedInstance(rs.getString(2), rs.getString(3),
                rs.getTimestamp(4).toInstant(), rs.getString(5), rs.getString(6))), keys));
        // the catalog publications only: a deadline notification never goes to the catalog, and its delivery says
        // nothing about the application's publish status
        Map<String, List<OutboxEvent>> outbox = byKey(business.query("""
                select aggregate_id, event_id, event_type, event_status, retry_count, next_retry_at, lease_until, last_error_code, updated_at,
                       payload_json
                  from outbox_event where aggregate_type = ? and aggregate_id in (%s) and event_type = ? order by created_at, event_id
                """.formatted(in), (rs, n) -> Map.entry(rs.getString(1), new OutboxEvent(rs.getString(2), rs.getString(3),
                rs.getString(4), rs.getInt(5), rs.getTimestamp(6).toInstant(), toInstant(rs.getTimestamp(7)), rs.getString(8),
                rs.getTimestamp(9).toInstant(), PayloadDigest.sha256(rs.getString(10)))), arguments(Application.BUSINESS_TYPE, keys, Outbox.ASSET_PUBLISH_REQUESTED)));
        Instant overdueBefore = clock.instant().minus(settings.outboxSla());

        Map<Long, Evidence> evidence = new LinkedHashMap<>();
        for (Row application : applications) {
            String key = Long.toString(application.id());
            EngineSide workflowSide = engine.getOrDefault(key, EngineSide.NONE);
            List<EndedInstance> ended = new ArrayList<>(workflowSide.ended());
            ended.addAll(archived.getOrDefault(key, List.of()));
            ended.sort(Comparator.comparing(EndedInstance::id));
            List<String> currentDecisions = decisions.getOrDefault(key, List.of()).stream()
                    .filter(decision -> decision.getKey() == application.lifecycleNo()).map(Map.Entry::getValue).toList();
            evidence.put(application.id(), new Evidence(application.id(), application.status(), application.processInstanceId(),
                    application.processDefinitionId(), application.lifecycleNo(), application.actionSeq(), application.updatedAt(),
                    bindings.getOrDefault(key, List.of()), currentDecisions, stuck.getOrDefault(key, List.of()), workflowSide.active(),
                    ended, workflowSide.open(), workflowSide.jobs(), projected.getOrDefault(key, List.of()),
                    new Evidence.Publication(application.publishStatus(), outbox.getOrDefault(key, List.of()), Map.of(), overdueBefore)));
        }
        return evidence;
    }

    /** Rows grouped by their key (an application's id as text), each group in the order the query gave it. */
    private static <T> Map<String, List<T>> byKey(List<Map.Entry<String, T>> rows) {
        return rows.stream().collect(Collectors.groupingBy(Map.Entry::getKey, HashMap::new,
                Collectors.mapping(Map.Entry::getValue, Collectors.toList())));
    }

    /** A statement's arguments: {@code first}, the {@code in} list's values, then {@code after}. */
    private static Object[] arguments(Object first, Object[] values, Object... after) {
        List<Object> all = new ArrayList<>();
        all.add(first);
        all.addAll(List.of(values));
        all.addAll(List.of(after));
        return all.toArray();
    }

    private static Instance instance(ProcessInstance instance, int executions, Long actionSeq) {
        return new Instance(instance.getId(), instance.getProcessDefinitionId(),
                instance.getProcessDefinitionVersion() == null ? 0 : instance.getProcessDefinitionVersion(), instance.isSuspended(),
                executions, actionSeq);
    }

    private static Task task(org.activiti.engine.task.Task task) {
        return new Task(task.getId(), task.getProcessInstanceId(), task.getTaskDefinitionKey(), task.getAssignee(), task.getOwner(),
                task.getDelegationState() == null ? null : task.getDelegationState().name());
    }

    private static EndedInstance ended(HistoricProcessInstance instance, String outcome) {
        return new EndedInstance(instance.getId(), instance.getProcessDefinitionId(), toInstant(instance.getEndTime()),
                instance.getDeleteReason(), outcome);
    }

    private static Instant toInstant(Date date) {
        return date == null ? null : date.toInstant();
    }

    private static Instant toInstant(Timestamp timestamp) {
        return timestamp == null ? null : timestamp.toInstant();
    }
}
