package dev.lockstep.transactions.workflow;

import dev.lockstep.platform.AreaApi;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.activiti.engine.HistoryService;
import org.activiti.engine.ManagementService;
import org.activiti.engine.RepositoryService;
import org.activiti.engine.RuntimeService;
import org.activiti.engine.TaskService;
import org.activiti.engine.history.HistoricVariableInstance;
import org.activiti.engine.impl.persistence.entity.TaskEntity;
import org.activiti.engine.repository.ProcessDefinition;
import org.activiti.engine.runtime.ProcessInstance;
import org.activiti.engine.task.DelegationState;
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
@AreaApi
public class ApprovalProcess {

    public static final String PROCESS_KEY = "applicationApproval";
    public static final String COUNTERSIGN_PROCESS_KEY = "countersignApproval";
    public static final String COUNTERSIGN_TASK = CountersignStep.ACTIVITY_ID;
    public static final String OUTCOME = "outcome";
    public static final String DECISION = "decision";
    /**
     * Names a routable field may not take: the variables the product sets on a deployed definition's run, and the beans
     * its expressions call, which a variable of the same name would hide from the engine's resolver. The built-in
     * processes' own fields (riskLevel, sensitive) are free: a typed run is never given them otherwise.
     */
    public static final Set<String> RESERVED_NAMES = Set.of("applicantId", ActionFence.VARIABLE,
            DECISION, OUTCOME, CountersignRule.SIGNERS, CountersignRule.POLICY, CountersignRule.RATIO, CountersignRule.APPROVALS,
            CountersignRule.REJECTIONS, CountersignRule.MANAGER_REVIEW, CountersignRule.RESULT, CountersignStep.SIGNER,
            "countersign", "deadlines", "execution", "task");

    private final RuntimeService runtime;
    private final TaskService tasks;
    private final HistoryService history;
    private final RepositoryService repository;
    private final ManagementService management;
    private final CountersignRule countersignRule;

    public ApprovalProcess(RuntimeService runtime, TaskService tasks, HistoryService history, RepositoryService repository,
            ManagementService management, CountersignRule countersignRule) {
        this.runtime = runtime;
        this.tasks = tasks;
        this.history = history;
        this.repository = repository;
        this.management = management;
        this.countersignRule = countersignRule;
    }

    /**
     * Starts a run for one application: the countersign process when the application names signers,
     * else the standard chain. Only what the gateways need goes into process variables.
     */
    public StartedProcess start(String businessKey, String applicantId, boolean sensitive, String riskLevel,
            Countersign countersign, long actionSeq) {
        Map<String, Object> variables = new HashMap<>(Map.of("applicantId", applicantId, "sensitive", sensitive,
                "riskLevel", riskLevel, ActionFence.VARIABLE, actionSeq));
        putCountersign(variables, countersign);
        ProcessInstance instance = runtime.startProcessInstanceByKey(countersign == null ? PROCESS_KEY : COUNTERSIGN_PROCESS_KEY,
                businessKey, variables);
        ProcessDefinition definition = repository.getProcessDefinition(instance.getProcessDefinitionId());
        return new StartedProcess(instance.getId(), definition.getId(), definition.getVersion());
    }

    /**
     * Starts a run on one deployed definition, named by its engine id rather than its key: the product, not the
     * engine's latest deployment, decides which version new runs take. {@code routableFields} become process
     * variables next to what every run carries (the applicant, the action fence); {@code countersign}: the signers
     * and the definition's policy when it has a countersign step, else null.
     */
    public StartedProcess startByDefinitionId(String processDefinitionId, String businessKey, String applicantId,
            Map<String, Object> routableFields, Countersign countersign, long actionSeq) {
        Map<String, Object> variables = new HashMap<>(routableFields);
        variables.put("applicantId", applicantId);
        variables.put(ActionFence.VARIABLE, actionSeq);
        putCountersign(variables, countersign);
        ProcessInstance instance = runtime.startProcessInstanceById(processDefinitionId, businessKey, variables);
        ProcessDefinition definition = repository.getProcessDefinition(instance.getProcessDefinitionId());
        return new StartedProcess(instance.getId(), definition.getId(), definition.getVersion());
    }

    /** What a countersign step reads (CountersignRule): its signers and policy, and whether a manager reviews first. */
    private static void putCountersign(Map<String, Object> variables, Countersign countersign) {
        if (countersign != null) {
            variables.put(CountersignRule.SIGNERS, new ArrayList<>(countersign.signers()));
            variables.put(CountersignRule.POLICY, countersign.policy().name());
            if (countersign.ratio() != null) {
                variables.put(CountersignRule.RATIO, countersign.ratio().toPlainString());
            }
            variables.put(CountersignRule.MANAGER_REVIEW, countersign.managerReview());
        }
    }

    public List<OpenTask> openTasks(String processInstanceId) {
        return tasks.createTaskQuery().processInstanceId(processInstanceId).orderByTaskCreateTime().asc().list()
                .stream().flatMap(task -> describe(task.getId()).stream()).toList();
    }

    public Optional<OpenTask> findTask(String taskId) {
        return describe(taskId);
    }

    /** True when the task once existed and has been completed or cancelled. */
    public boolean taskFinished(String taskId) {
        return history.createHistoricTaskInstanceQuery().taskId(taskId).finished().count() > 0;
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

    /** The task goes back to its candidate groups: no assignee, no claim time. */
    public void unclaim(String taskId) {
        tasks.unclaim(taskId);
    }

    /** 委派: the delegate works on the task, the caller stays its owner and gets it back on resolve. */
    public void delegate(String taskId, String userId) {
        tasks.delegateTask(taskId, userId);
    }

    public void resolve(String taskId) {
        tasks.resolveTask(taskId);
    }

    /** 转办: the task simply changes hands. */
    public void transfer(String taskId, String userId) {
        tasks.setAssignee(taskId, userId);
    }

    /** 加签 on the running countersign step (custom engine command, joins the caller's transaction). */
    public void addSigner(String processInstanceId, String userId) {
        management.executeCommand(new AddSignerCmd(processInstanceId, userId));
    }

    /**
     * 减签 of the signer who holds the open countersign task {@code taskId} (its original signer, if it was
     * transferred, leaves the signer list). Never decides the step: refused (409, see {@link RemoveSignerCmd})
     * when it would leave no outstanding signer, fewer signers than the minimum number of distinct deciders of
     * the policy as {@code declared} at the application's creation, or the policy's completion condition met.
     */
    public void removeSigner(String processInstanceId, String taskId, String reason, Countersign declared) {
        management.executeCommand(new RemoveSignerCmd(processInstanceId, taskId, reason, countersignRule,
                CountersignRule.minimumDeciders(declared)));
    }

    /** The earlier steps the open task may be returned to; empty where the process shape offers none. */
    public List<ReturnTarget> returnTargets(String taskId) {
        return management.executeCommand(new ReturnTargetsCmd(taskId));
    }

    /**
     * 任意节点驳回: cancels every open task and branch of the task's process with {@code reason} and
     * re-creates the target step; refuses a target not in {@link #returnTargets}.
     */
    public void returnTo(String taskId, String targetId, ReturnMode mode, String reason) {
        management.executeCommand(new ReturnToStepCmd(taskId, targetId, mode, reason));
    }

    @SuppressWarnings("unchecked")
    public List<String> signers(String processInstanceId) {
        return (List<String>) runtime.getVariable(processInstanceId, CountersignRule.SIGNERS);
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

    /**
     * The task with its candidate groups, read in one engine command: a task completed between two
     * separate reads would otherwise have no identity links left to read. Empty once it is gone.
     */
    private Optional<OpenTask> describe(String taskId) {
        return Optional.ofNullable(management.executeCommand(context -> {
            TaskEntity task = context.getTaskEntityManager().findById(taskId);
            return task == null ? null : describe(task, task.getIdentityLinks());
        }));
    }

    private static OpenTask describe(Task task, List<? extends IdentityLink> links) {
        List<String> candidateGroups = links.stream()
                        .filter(link -> IdentityLinkType.CANDIDATE.equals(link.getType()) && link.getGroupId() != null)
                        .map(IdentityLink::getGroupId)
                        .toList();
        return new OpenTask(task.getId(), task.getName(), task.getTaskDefinitionKey(), task.getProcessInstanceId(),
                task.getAssignee(), task.getOwner(), task.getDelegationState() == DelegationState.PENDING, candidateGroups,
                toInstant(task.getCreateTime()));
    }

    private static Instant toInstant(Date date) {
        return date == null ? null : date.toInstant();
    }

    public record StartedProcess(String processInstanceId, String processDefinitionId, int processDefinitionVersion) {
    }

    /** {@code delegated}: handed to its assignee by its owner and not yet resolved back. */
    public record OpenTask(String id, String name, String taskDefinitionKey, String processInstanceId, String assignee,
            String owner, boolean delegated, List<String> candidateGroups, Instant createdAt) {

        /** The user may act on it now: assigned to them, or unclaimed and offered to one of their groups. */
        public boolean offeredTo(String userId, Collection<String> groups) {
            return userId.equals(assignee) || (assignee == null && isCandidate(groups));
        }

        public boolean isCandidate(Collection<String> groups) {
            return candidateGroups.stream().anyMatch(groups::contains);
        }

        /**
         * Who holds the task now and answers for it: its owner while it is delegated (the delegate only works on it and
         * hands it back), else its assignee — after a transfer, the person it was transferred to.
         */
        public String holder() {
            return delegated ? owner : assignee;
        }
    }
}
