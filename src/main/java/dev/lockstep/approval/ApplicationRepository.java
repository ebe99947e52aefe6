package dev.lockstep.approval;

import dev.lockstep.platform.AreaApi;
import dev.lockstep.transactions.workflow.Countersign;
import java.math.BigDecimal;
import java.time.Instant;
import org.springframework.data.domain.Page;
import org.springframework.data.domain.Pageable;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.Modifying;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.repository.query.Param;

/**
 * Every state change is a guarded update (seed 000 section 9): it names the state it expects and
 * bumps row_version; the row count says whether this request won. Two concurrent requests cannot
 * both move the same row, whatever each read before.
 */
@AreaApi
public interface ApplicationRepository extends JpaRepository<Application, Long> {

    /** DRAFT/REJECTED → SUBMITTING and the next lifecycle number; only the applicant, only once. */
    @Modifying(flushAutomatically = true, clearAutomatically = true)
    @Query("""
            update Application a set a.approvalStatus = dev.lockstep.approval.ApprovalStatus.SUBMITTING,
                   a.lifecycleNo = a.lifecycleNo + 1, a.rowVersion = a.rowVersion + 1, a.updatedAt = :now
             where a.id = :id and a.applicantId = :applicantId and a.rowVersion = :rowVersion
               and a.approvalStatus in (dev.lockstep.approval.ApprovalStatus.DRAFT, dev.lockstep.approval.ApprovalStatus.REJECTED)
            """)
    int beginSubmission(@Param("id") long id, @Param("applicantId") String applicantId,
            @Param("rowVersion") long rowVersion, @Param("now") Instant now);

    @Modifying(flushAutomatically = true, clearAutomatically = true)
    @Query("""
            update Application a set a.approvalStatus = dev.lockstep.approval.ApprovalStatus.APPROVING,
                   a.processInstanceId = :processInstanceId, a.processDefinitionId = :processDefinitionId,
                   a.processDefinitionVersion = :processDefinitionVersion, a.definitionVersion = coalesce(:definitionVersion, a.definitionVersion),
                   a.currentTaskSummary = :taskSummary,
                   a.closedReason = null, a.rowVersion = a.rowVersion + 1, a.updatedAt = :now
             where a.id = :id and a.approvalStatus = dev.lockstep.approval.ApprovalStatus.SUBMITTING
            """)
    int markApproving(@Param("id") long id, @Param("processInstanceId") String processInstanceId,
            @Param("processDefinitionId") String processDefinitionId,
            @Param("processDefinitionVersion") int processDefinitionVersion, @Param("definitionVersion") Integer definitionVersion,
            @Param("taskSummary") String taskSummary,
            @Param("now") Instant now);

    /** A registered type's application submitted on a version with a countersign step takes that step's policy. */
    @Modifying(flushAutomatically = true, clearAutomatically = true)
    @Query("""
            update Application a set a.countersignPolicy = :policy, a.countersignRatio = :ratio
             where a.id = :id
            """)
    int takeCountersignPolicy(@Param("id") long id, @Param("policy") Countersign.Policy policy, @Param("ratio") BigDecimal ratio);

    /**
     * Takes the application's row lock for one step of a running process: serializes decisions on
     * parallel tasks, so the engine's join never sees two completions at once.
     */
    @Modifying(flushAutomatically = true, clearAutomatically = true)
    @Query("""
            update Application a set a.rowVersion = a.rowVersion + 1, a.actionSeq = a.actionSeq + 1, a.updatedAt = :now
             where a.id = :id and a.processInstanceId = :processInstanceId
               and a.approvalStatus = dev.lockstep.approval.ApprovalStatus.APPROVING
            """)
    int lockRunningStep(@Param("id") long id, @Param("processInstanceId") String processInstanceId, @Param("now") Instant now);

    @Modifying(flushAutomatically = true, clearAutomatically = true)
    @Query("""
            update Application a set a.currentTaskSummary = :taskSummary, a.updatedAt = :now
             where a.id = :id and a.approvalStatus = dev.lockstep.approval.ApprovalStatus.APPROVING
            """)
    int updateTaskSummary(@Param("id") long id, @Param("taskSummary") String taskSummary, @Param("now") Instant now);

    /** APPROVING → APPROVED (publishing becomes PENDING), REJECTED or CANCELED, following the process outcome. */
    @Modifying(flushAutomatically = true, clearAutomatically = true)
    @Query("""
            update Application a set a.approvalStatus = :status, a.publishStatus = :publishStatus,
                   a.currentTaskSummary = null, a.closedReason = :reason,
                   a.rowVersion = a.rowVersion + 1, a.updatedAt = :now
             where a.id = :id and a.approvalStatus = dev.lockstep.approval.ApprovalStatus.APPROVING
            """)
    int close(@Param("id") long id, @Param("status") ApprovalStatus status, @Param("publishStatus") PublishStatus publishStatus,
            @Param("reason") String reason, @Param("now") Instant now);

    @Query("""
            select a from Application a
             where (:applicantId is null or a.applicantId = :applicantId)
               and (:status is null or a.approvalStatus = :status)
            """)
    Page<Application> search(@Param("applicantId") String applicantId, @Param("status") ApprovalStatus status, Pageable page);

    /**
     * The open reconciliation incident that freezes the application, if any. Read after the row lock is
     * taken: an incident is opened under the same lock, so no action slips past one being opened.
     */
    @Query(value = "select min(id) from reconciliation_incident where application_id = :id and state <> 'CLOSED'",
            nativeQuery = true)
    Long openIncidentOf(@Param("id") long id);
}
