package dev.lockstep.history.archive;

import dev.lockstep.platform.ConditionalOnXaMode;
import dev.lockstep.platform.security.Caller;
import dev.lockstep.platform.web.ApiException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** ADMIN (SecurityConfiguration maps /api/admin/**): see history archival, run it now, pause and resume it. */
@RestController
@ConditionalOnXaMode
@RequestMapping("/api/admin/history-archival")
class ArchivalController {

    static final int MAX_BATCHES = 100;

    private final HistoryArchival archival;

    ArchivalController(HistoryArchival archival) {
        this.archival = archival;
    }

    record RunRequest(Integer batches) {
    }

    record PauseRequest(String reason) {
    }

    @GetMapping
    Map<String, Object> status() {
        return archival.status();
    }

    /** Runs up to {@code batches} batches (default 1) now, inside or outside the quiet window; returns what moved. */
    @PostMapping("/runs")
    Map<String, Object> run(@RequestBody(required = false) RunRequest request) {
        int batches = request == null || request.batches() == null ? 1 : request.batches();
        if (batches < 1 || batches > MAX_BATCHES) {
            throw ApiException.badRequest("INVALID_BATCH_COUNT", batches + " batches: ask for 1 to " + MAX_BATCHES + ".");
        }
        HistoryArchival.Run run;
        try {
            run = archival.onDemand(batches, Caller.current().id());
        } catch (RuntimeException e) {
            throw ApiException.retryLater("ARCHIVAL_BATCH_ROLLED_BACK", "the archival batch rolled back (" + e.getMessage()
                    + "): history and archive are as they were; retry, and see the log if it fails again");
        }
        if (run.batches().isEmpty() && run.stoppedBecause().equals(HistoryArchival.PAUSED)) {
            throw ApiException.conflict("ARCHIVAL_PAUSED", "History archival is paused; resume it first.");
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("processes", run.processes());
        result.put("rows", run.rows());
        result.put("batches", run.batches());
        result.put("stoppedBecause", run.stoppedBecause());
        return result;
    }

    @PostMapping("/pause")
    HistoryArchive.Control pause(@RequestBody(required = false) PauseRequest request) {
        String reason = request == null ? null : request.reason();
        if (reason == null || reason.isBlank()) {
            throw ApiException.badRequest("REASON_REQUIRED", "Say why archival is paused: {\"reason\": \"...\"}.");
        }
        return archival.setPaused(true, Caller.current().id(), reason);
    }

    @PostMapping("/resume")
    HistoryArchive.Control resume(@RequestBody(required = false) PauseRequest request) {
        return archival.setPaused(false, Caller.current().id(), request == null ? null : request.reason());
    }
}
