package dev.lockstep.approval;

/**
 * The explicit outcomes the approval process records at its end events, and what each means for
 * the business record. The end of a process alone says nothing about the result.
 */
enum ProcessOutcome {
    APPROVED(ApprovalStatus.APPROVED, PublishStatus.PENDING, BindingStatus.APPROVED),
    REJECTED(ApprovalStatus.REJECTED, PublishStatus.NOT_STARTED, BindingStatus.REJECTED),
    /** A step's deadline returned it: a draft again, for the applicant to rework and resubmit. */
    RETURNED(ApprovalStatus.DRAFT, PublishStatus.NOT_STARTED, BindingStatus.RETURNED);

    private final ApprovalStatus approvalStatus;
    private final PublishStatus publishStatus;
    private final BindingStatus bindingStatus;

    ProcessOutcome(ApprovalStatus approvalStatus, PublishStatus publishStatus, BindingStatus bindingStatus) {
        this.approvalStatus = approvalStatus;
        this.publishStatus = publishStatus;
        this.bindingStatus = bindingStatus;
    }

    ApprovalStatus approvalStatus() {
        return approvalStatus;
    }

    PublishStatus publishStatus() {
        return publishStatus;
    }

    BindingStatus bindingStatus() {
        return bindingStatus;
    }
}
