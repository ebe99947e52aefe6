package dev.lockstep.publishing.outbox;

import dev.lockstep.platform.ConditionalOnXaMode;
import dev.lockstep.platform.security.Caller;
import dev.lockstep.platform.web.ApiException;
import dev.lockstep.publishing.outbox.OutboxStore.EventRow;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Size;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Operators' view of publishing: the events (oldest first), the lag, and the two repairs. Reading is
 * for ADMIN and AUDITOR, repairing for ADMIN (the security configuration enforces both).
 */
@RestController
@ConditionalOnXaMode
@RequestMapping(path = "/api/admin/outbox", produces = "application/json")
class OutboxAdminController {

    private final OutboxStore store;
    private final OutboxMonitor monitor;
    private final OutboxOperations operations;

    OutboxAdminController(OutboxStore store, OutboxMonitor monitor, OutboxOperations operations) {
        this.store = store;
        this.monitor = monitor;
        this.operations = operations;
    }

    record OperatorReason(@NotBlank @Size(max = 1000) String reason) {
    }

    @GetMapping
    List<EventRow> events(@RequestParam(required = false) String status, @RequestParam(required = false) String type,
            @RequestParam(defaultValue = "100") int limit) {
        if (status != null && Arrays.stream(EventStatus.values()).noneMatch(known -> known.name().equals(status))) {
            throw ApiException.badRequest("OUTBOX_STATUS_UNKNOWN", "status must be one of "
                    + Arrays.toString(EventStatus.values()) + ".");
        }
        if (limit < 1 || limit > 1000) {
            throw ApiException.badRequest("LIMIT_OUT_OF_RANGE", "limit must be between 1 and 1000.");
        }
        return store.list(status, type, limit);
    }

    record LagView(Map<String, Long> byStatus, Long oldestPendingAgeSeconds, Long oldestProcessingAgeSeconds,
            Map<Integer, Long> retryCountDistribution, Map<String, Long> lastErrorCodes, boolean stuck, String stuckAfter) {
    }

    @GetMapping("/lag")
    LagView lag() {
        OutboxStore.Lag lag = monitor.read();
        Instant now = Instant.now();
        return new LagView(lag.byStatus(), ageSeconds(lag.oldestPendingCreatedAt(), now),
                ageSeconds(lag.oldestProcessingSince(), now), lag.retryCounts(), lag.lastErrorCodes(), monitor.stuck(),
                monitor.stuckAfter().toString());
    }

    @PostMapping(path = "/{eventId}/retry", consumes = "application/json")
    EventRow retry(@PathVariable String eventId, @Valid @RequestBody OperatorReason request) {
        return operations.retry(eventId, request.reason(), Caller.current().id());
    }

    @PostMapping(path = "/{eventId}/give-up", consumes = "application/json")
    EventRow giveUp(@PathVariable String eventId, @Valid @RequestBody OperatorReason request) {
        return operations.giveUp(eventId, request.reason(), Caller.current().id());
    }

    private static Long ageSeconds(Instant since, Instant now) {
        return since == null ? null : Duration.between(since, now).toSeconds();
    }
}
