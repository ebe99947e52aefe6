package dev.lockstep.approval.application;

import dev.lockstep.approval.Application;
import dev.lockstep.approval.ApplicationRepository;
import dev.lockstep.approval.ApplicationView;
import dev.lockstep.approval.ApprovalRecordRepository;
import dev.lockstep.approval.ApprovalStatus;
import dev.lockstep.approval.BusinessProcessBindingRepository;
import dev.lockstep.approval.todo.TaskProjection;
import dev.lockstep.approval.todo.TaskView;
import dev.lockstep.approval.trail.ApplicationTrail;
import dev.lockstep.platform.security.Caller;
import dev.lockstep.platform.security.Roles;
import dev.lockstep.platform.web.ApiException;
import dev.lockstep.transactions.businessonly.BusinessOnlyTransactions;
import dev.lockstep.transactions.workflow.ApprovalProcess.OpenTask;
import java.util.List;
import org.springframework.data.domain.Page;
import org.springframework.data.domain.PageRequest;
import org.springframework.data.domain.Sort;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Read side: applicants see their own applications, approvers, admins and auditors see all. Reads
 * only the business database (open tasks from task_projection, not the engine), so a read runs in a
 * local transaction of it: no JTA transaction, no coordinator log.
 */
@Service
@Transactional(transactionManager = BusinessOnlyTransactions.MANAGER, readOnly = true)
public class ApplicationQueries {

    private final ApplicationRepository applications;
    private final BusinessProcessBindingRepository bindings;
    private final ApprovalRecordRepository records;
    private final TaskProjection tasks;
    private final ApplicationTrail trail;

    public ApplicationQueries(ApplicationRepository applications, BusinessProcessBindingRepository bindings,
            ApprovalRecordRepository records, TaskProjection tasks, ApplicationTrail trail) {
        this.applications = applications;
        this.bindings = bindings;
        this.records = records;
        this.tasks = tasks;
        this.trail = trail;
    }

    public ApplicationDetails details(long applicationId, Caller caller) {
        Application application = applications.findById(applicationId)
                .filter(found -> seesAll(caller) || found.getApplicantId().equals(caller.id()))
                .orElseThrow(() -> ApiException.notFound("APPLICATION_NOT_FOUND", "There is no application " + applicationId + "."));
        return new ApplicationDetails(ApplicationView.of(application),
                bindings.findByBusinessTypeAndBusinessIdOrderByLifecycleNo(Application.BUSINESS_TYPE, application.businessKey())
                        .stream().map(ApplicationDetails.Binding::of).toList(),
                records.findByApplicationIdOrderByDecidedAt(applicationId).stream().map(ApplicationDetails.Record::of).toList(),
                trail.of(applicationId).stream().map(ApplicationDetails.Event::of).toList(),
                application.getApprovalStatus() == ApprovalStatus.APPROVING
                        ? tasks.openTasksOf(application.getProcessInstanceId()).stream().map(ApplicationQueries::openTask).toList()
                        : List.of());
    }

    public Page<ApplicationView> search(String applicant, ApprovalStatus status, int page, int size, Caller caller) {
        String visibleApplicant = seesAll(caller) ? applicant : caller.id();
        return applications.search(visibleApplicant, status,
                        PageRequest.of(page, size, Sort.by(Sort.Direction.DESC, "createdAt").and(Sort.by(Sort.Direction.DESC, "id"))))
                .map(ApplicationView::of);
    }

    private static OpenTask openTask(TaskView task) {
        return new OpenTask(task.id(), task.name(), task.taskDefinitionKey(), task.processInstanceId(), task.assignee(),
                task.owner(), "PENDING".equals(task.delegationState()), task.candidateGroups(), task.createdAt());
    }

    private static boolean seesAll(Caller caller) {
        return caller.hasRole(Roles.APPROVER) || caller.hasRole(Roles.ADMIN) || caller.hasRole(Roles.AUDITOR);
    }
}
