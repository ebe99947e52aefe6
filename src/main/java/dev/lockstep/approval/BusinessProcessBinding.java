package dev.lockstep.approval;

import dev.lockstep.platform.AreaApi;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/** Links one lifecycle of a business object to the process instance that ran it (seed 000 section 4). */
@Entity
@Table(name = "business_process_binding")
@AreaApi
public class BusinessProcessBinding {

    public static final String PROCESS_TYPE = "APPROVAL";

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;
    private String businessType;
    private String businessId;
    private String processType;
    private String processInstanceId;
    private String processDefinitionId;
    private int lifecycleNo;
    @Enumerated(EnumType.STRING)
    private BindingStatus bindingStatus;
    private Instant createdAt;
    private Instant endedAt;

    protected BusinessProcessBinding() {
    }

    public static BusinessProcessBinding active(String businessId, String processInstanceId, String processDefinitionId,
            int lifecycleNo, Instant now) {
        BusinessProcessBinding binding = new BusinessProcessBinding();
        binding.businessType = Application.BUSINESS_TYPE;
        binding.businessId = businessId;
        binding.processType = PROCESS_TYPE;
        binding.processInstanceId = processInstanceId;
        binding.processDefinitionId = processDefinitionId;
        binding.lifecycleNo = lifecycleNo;
        binding.bindingStatus = BindingStatus.ACTIVE;
        binding.createdAt = now;
        return binding;
    }

    public Long getId() {
        return id;
    }

    public String getProcessInstanceId() {
        return processInstanceId;
    }

    public String getProcessDefinitionId() {
        return processDefinitionId;
    }

    public int getLifecycleNo() {
        return lifecycleNo;
    }

    public BindingStatus getBindingStatus() {
        return bindingStatus;
    }

    public Instant getCreatedAt() {
        return createdAt;
    }

    public Instant getEndedAt() {
        return endedAt;
    }
}
