package dev.lockstep.approval;

import java.util.List;
import org.springframework.data.jpa.repository.JpaRepository;

public interface ApprovalRecordRepository extends JpaRepository<ApprovalRecord, Long> {

    List<ApprovalRecord> findByApplicationIdOrderByDecidedAt(long applicationId);

    boolean existsByApplicationIdAndLifecycleNo(long applicationId, int lifecycleNo);
}
