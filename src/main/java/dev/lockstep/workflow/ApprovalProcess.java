package dev.lockstep.workflow;

import java.time.Instant;
import java.util.Collection;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.activiti.engine.HistoryService;
import org.activiti.engine.RepositoryService;
import org.activiti.engine.RuntimeService;
import org.activiti.engine.TaskService;
import org.activiti.engine.history.HistoricVariableInstance;
import org.activiti.engine.repository.ProcessDefinition;
import org.activiti.engine.runtime.ProcessInstance;
import org.activiti.engine.task.IdentityLink;
import org.activiti.engine.task.IdentityLinkType;
import org.activiti.engine.task.Task;
import org.springframework.stereotype.Component;

/**
 * The application approval process as the use cases see it. Every method runs an engine command
 * that joins the caller's JTA transaction, so its ACT_* writes commit or roll back with the
 * business rows.
 */
@Component
public class ApprovalProcess {

    public static final String PROCESS_KEY = "applicationApproval";
    public static final String OUTCOME = "outcome";
    public static final String DECISION = "decision";

    private final RuntimeService runtime;
    private final TaskService tasks;
    private final HistoryService history;
    private final RepositoryService repository;

    public ApprovalProcess(RuntimeService runtime, TaskService tasks, HistoryService history, RepositoryService repository) {
        this.runtime = runtime;
        this.tasks = tasks;
        this.history = history;
        this.repository = repository;
    }

    /** Starts a run for one application; only what the gateways need goes into process variables. */
    public StartedProcess start(String businessKey, String applicantId, boolean sensitive, String riskLevel) {
        ProcessInstance instance = runtime.startProcessInstanceByKey(PROCESS_KEY, businessKey,
                Map.of("applicantId", applicantId, "sensitive", sensitive, "riskLevel", riskLevel));
        ProcessDefinition definition = repository.getProcessDefinition(instance.getProcessDefinitionId());
        return new StartedProcess(instance.getId(), definition.getId(), definition.getVersion());
    }

    public List<OpenTask> openTasks(String processInstanceId) {
        return tasks.createTaskQuery().processInstanceId(processInstanceId).orderByTaskCreateTime().asc().list()
                .stream().map(this::describe).toList();
    }

    public Optional<OpenTask> findTask(String taskId) {
        return Optional.ofNullable(tasks.createTaskQuery().taskId(taskId).singleResult()).map(this::describe);
    }

    /** True when the task once existed and has been completed or cancelled. */
    public boolean taskFinished(String taskId) {
        return history.createHistoricTaskInstanceQuery().taskId(taskId).finished().count() > 0;
    }

    /** The caller's todo: tasks assigned to them or offered to one of their groups, newest first. */
    public List<OpenTask> todo(String userId, List<String> groups, int first, int max) {
        return tasks.createTaskQuery().taskCandidateOrAssigned(userId, groups).orderByTaskCreateTime().desc()
                .listPage(first, max).stream().map(this::describe).toList();
    }

    public String businessKeyOf(String processInstanceId) {
        ProcessInstance instance = runtime.createProcessInstanceQuery().processInstanceId(processInstanceId).singleResult();
        if (instance != null) {
            return instance.getBusinessKey();
        }
        return history.createHistoricProcessInstanceQuery().processInstanceId(processInstanceId).singleResult().getBusinessKey();
    }

    public void claim(String taskId, String userId) {
        tasks.claim(taskId, userId);
    }

    public void complete(String taskId, String decision) {
        tasks.complete(taskId, Map.of(DECISION, decision));
    }

    public boolean isRunning(String processInstanceId) {
        return runtime.createProcessInstanceQuery().processInstanceId(processInstanceId).count() > 0;
    }

    /** The explicit outcome the process recorded at its end event; empty while it runs. */
    public Optional<String> outcome(String processInstanceId) {
        HistoricVariableInstance outcome = history.createHistoricVariableInstanceQuery()
                .processInstanceId(processInstanceId).variableName(OUTCOME).singleResult();
        return outcome == null ? Optional.empty() : Optional.of(String.valueOf(outcome.getValue()));
    }

    /** Ends a running process early (withdraw, terminate), recording why as its outcome. */
    public void cancel(String processInstanceId, String outcome, String reason) {
        runtime.setVariable(processInstanceId, OUTCOME, outcome);
        runtime.deleteProcessInstance(processInstanceId, outcome + ": " + reason);
    }

    private OpenTask describe(Task task) {
        List<String> candidateGroups = tasks.getIdentityLinksForTask(task.getId()).stream()
                        .filter(link -> IdentityLinkType.CANDIDATE.equals(link.getType()) && link.getGroupId() != null)
                        .map(IdentityLink::getGroupId)
                        .toList();
        return new OpenTask(task.getId(), task.getName(), task.getTaskDefinitionKey(), task.getProcessInstanceId(),
                task.getAssignee(), candidateGroups, toInstant(task.getCreateTime()));
    }

    private static Instant toInstant(Date date) {
        return date == null ? null : date.toInstant();
    }

    public record StartedProcess(String processInstanceId, String processDefinitionId, int processDefinitionVersion) {
    }

    public record OpenTask(String id, String name, String taskDefinitionKey, String processInstanceId, String assignee,
            List<String> candidateGroups, Instant createdAt) {

        /** The user may act on it now: assigned to them, or unclaimed and offered to one of their groups. */
        public boolean offeredTo(String userId, Collection<String> groups) {
            return userId.equals(assignee) || (assignee == null && isCandidate(groups));
        }

        public boolean isCandidate(Collection<String> groups) {
            return candidateGroups.stream().anyMatch(groups::contains);
        }
    }
}
