package dev.lockstep.approval.todo;

import java.math.BigDecimal;
import java.time.Instant;

/** Optional list filters; created-at bounds apply to the task's creation, {@code createdBefore} is exclusive. */
public record TaskFilter(String businessType, String applicantId, BigDecimal minAmount, BigDecimal maxAmount,
        Instant createdFrom, Instant createdBefore) {
}
