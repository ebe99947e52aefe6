package dev.lockstep.approval;

import dev.lockstep.platform.AreaApi;
import java.time.Instant;
import java.util.List;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.Modifying;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.repository.query.Param;

@AreaApi
public interface BusinessProcessBindingRepository extends JpaRepository<BusinessProcessBinding, Long> {

    List<BusinessProcessBinding> findByBusinessTypeAndBusinessIdOrderByLifecycleNo(String businessType, String businessId);

    @Modifying(flushAutomatically = true, clearAutomatically = true)
    @Query("""
            update BusinessProcessBinding b set b.bindingStatus = :status, b.endedAt = :now
             where b.processInstanceId = :processInstanceId and b.bindingStatus = dev.lockstep.approval.BindingStatus.ACTIVE
            """)
    int end(@Param("processInstanceId") String processInstanceId, @Param("status") BindingStatus status,
            @Param("now") Instant now);
}
