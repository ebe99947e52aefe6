package dev.lockstep.approval;

import dev.lockstep.operations.TransactionLogContext;
import dev.lockstep.security.Caller;
import dev.lockstep.web.ApiException;
import dev.lockstep.workflow.ApprovalProcess;
import dev.lockstep.workflow.ApprovalProcess.OpenTask;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * The approvers' use cases. Completing a task is one JTA transaction: the engine completes the task
 * and moves the process, the approval record is written and the business status follows the
 * process outcome, all committed together through two-phase commit.
 */
@Service
@Transactional(rollbackFor = Exception.class)
public class ApprovalTasks {

    private static final Logger log = LoggerFactory.getLogger(ApprovalTasks.class);

    private final ApplicationRepository applications;
    private final BusinessProcessBindingRepository bindings;
    private final ApprovalRecordRepository records;
    private final ApprovalProcess process;
    private final TaskSummaries summaries;
    private final Clock clock;

    public ApprovalTasks(ApplicationRepository applications, BusinessProcessBindingRepository bindings,
            ApprovalRecordRepository records, ApprovalProcess process, TaskSummaries summaries, Clock clock) {
        this.applications = applications;
        this.bindings = bindings;
        this.records = records;
        this.process = process;
        this.summaries = summaries;
        this.clock = clock;
    }

    @Transactional(readOnly = true)
    public List<TaskView> todo(Caller caller, int page, int size) {
        return process.todo(caller.id(), List.copyOf(caller.groups()), page * size, size).stream()
                .map(task -> TaskView.of(task, applicationOf(task)))
                .toList();
    }

    public TaskView claim(String taskId, Caller caller) {
        OpenTask task = offeredTask(taskId, caller);
        Application application = lockApplicationOf(task);
        process.claim(taskId, caller.id());
        applications.updateTaskSummary(application.getId(), summaries.of(process.openTasks(task.processInstanceId())),
                clock.instant());
        return TaskView.of(process.findTask(taskId).orElseThrow(), application);
    }

    /** Decides a task; if that ends the process, the application takes the process's explicit outcome. */
    public ApplicationView complete(String taskId, DecisionRequest request, String requestId, Caller caller) {
        Application application = lockApplicationOf(offeredTask(taskId, caller));
        // Re-read after the lock: a concurrent decision on the same task has committed by now.
        OpenTask task = offeredTask(taskId, caller);
        if (task.assignee() == null) {
            process.claim(taskId, caller.id());
        }
        process.complete(taskId, request.decision().name());
        Instant now = clock.instant();
        records.saveAndFlush(ApprovalRecord.of(application.getId(), application.getLifecycleNo(), task.processInstanceId(),
                task.id(), task.taskDefinitionKey(), task.name(), request.decision(), request.comment(), caller.id(),
                requestId, now));
        log.info("{} decided {} on task {} ({}) of application {}", caller.id(), request.decision(), task.id(),
                task.taskDefinitionKey(), application.getId());
        if (process.isRunning(task.processInstanceId())) {
            applications.updateTaskSummary(application.getId(), summaries.of(process.openTasks(task.processInstanceId())), now);
        } else {
            closeWithOutcome(application, task.processInstanceId(), now);
        }
        return ApplicationView.of(applications.findById(application.getId()).orElseThrow());
    }

    private void closeWithOutcome(Application application, String processInstanceId, Instant now) {
        String outcome = process.outcome(processInstanceId).orElseThrow(() -> new IllegalStateException(
                "process " + processInstanceId + " ended without an outcome variable; refusing to guess the result"));
        ProcessOutcome result = ProcessOutcome.valueOf(outcome);
        bindings.end(processInstanceId, result.bindingStatus(), now);
        applications.close(application.getId(), result.approvalStatus(), result.publishStatus(), null, now);
        log.info("application {} {}: its process ended with outcome {}", application.getId(), result.approvalStatus(), outcome);
    }

    private OpenTask offeredTask(String taskId, Caller caller) {
        OpenTask task = process.findTask(taskId).orElseThrow(() -> process.taskFinished(taskId)
                ? ApiException.conflict("TASK_ALREADY_COMPLETED", "Task " + taskId + " has already been completed.")
                : ApiException.notFound("TASK_NOT_FOUND", "There is no task " + taskId + "."));
        if (!task.offeredTo(caller.id(), caller.groups())) {
            if (task.isCandidate(caller.groups())) {
                throw ApiException.conflict("TASK_CLAIMED_BY_OTHER", "Task " + taskId + " is claimed by " + task.assignee() + ".");
            }
            throw ApiException.forbidden("NOT_A_CANDIDATE", "Task " + taskId + " is not assigned or offered to you.");
        }
        return task;
    }

    /** Serializes all decisions on one application (parallel tasks meet at a join) via its row lock. */
    private Application lockApplicationOf(OpenTask task) {
        long applicationId = Long.parseLong(process.businessKeyOf(task.processInstanceId()));
        TransactionLogContext.bind(Long.toString(applicationId));
        if (applications.lockRunningStep(applicationId, task.processInstanceId(), clock.instant()) == 0) {
            throw ApiException.conflict("APPLICATION_NOT_RUNNING",
                    "Application " + applicationId + " is no longer being approved.");
        }
        return applications.findById(applicationId).orElseThrow();
    }

    private Application applicationOf(OpenTask task) {
        return applications.findById(Long.parseLong(process.businessKeyOf(task.processInstanceId()))).orElse(null);
    }
}
