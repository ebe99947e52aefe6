package dev.lockstep.transactions.usecase;

import java.time.Instant;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.Modifying;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.repository.query.Param;

interface WorkflowCommandRepository extends JpaRepository<WorkflowCommand, String> {

    /**
     * Claims the request id before any work is done: a concurrent request with the same key blocks
     * on the primary key here and fails once the first commits, instead of doing the work twice.
     */
    @Modifying(flushAutomatically = true)
    @Query(nativeQuery = true, value = """
            insert into workflow_command (request_id, command_type, business_type, business_id, requested_by,
                                          request_fingerprint, command_status, created_at, updated_at)
            values (:requestId, :commandType, :businessType, :businessId, :requestedBy, :fingerprint, 'PROCESSING', :now, :now)
            """)
    int claim(@Param("requestId") String requestId, @Param("commandType") String commandType,
            @Param("businessType") String businessType, @Param("businessId") String businessId,
            @Param("requestedBy") String requestedBy, @Param("fingerprint") String fingerprint, @Param("now") Instant now);

    @Modifying(flushAutomatically = true, clearAutomatically = true)
    @Query(nativeQuery = true, value = """
            update workflow_command
               set command_status = 'SUCCEEDED', business_id = :businessId, response_status = :status,
                   response_body = :body, process_instance_id = :processInstanceId, result_code = :resultCode,
                   updated_at = :now
             where request_id = :requestId and command_status = 'PROCESSING'
            """)
    int succeed(@Param("requestId") String requestId, @Param("businessId") String businessId, @Param("status") int status,
            @Param("body") String body, @Param("processInstanceId") String processInstanceId,
            @Param("resultCode") String resultCode, @Param("now") Instant now);
}
