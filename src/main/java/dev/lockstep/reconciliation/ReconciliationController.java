package dev.lockstep.reconciliation;

import dev.lockstep.platform.ConditionalOnXaMode;
import dev.lockstep.platform.security.Caller;
import dev.lockstep.platform.web.ApiException;
import java.net.URI;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Runs (ADMIN) and incidents (read: ADMIN, DBA, AUDITOR; steps: ADMIN, DBA), as SecurityConfiguration maps them.
 * The console's incident page is a client of exactly this.
 */
@RestController
@ConditionalOnXaMode
@RequestMapping("/api/admin/reconciliation")
class ReconciliationController {

    private final Reconciliation reconciliation;
    private final Incidents incidents;

    ReconciliationController(Reconciliation reconciliation, Incidents incidents) {
        this.reconciliation = reconciliation;
        this.incidents = incidents;
    }

    record RunRequest(String kind) {
    }

    record Proposal(String fix, String note) {
    }

    record Execution(String commandUsed, String verification) {
    }

    /** 202: the run is queued on the reconciliation thread; poll the returned location. */
    @PostMapping("/runs")
    ResponseEntity<Map<String, Object>> start(@RequestBody(required = false) RunRequest request) {
        Reconciliation.Kind kind = parse(Reconciliation.Kind.class, request == null || request.kind() == null ? "INCREMENTAL"
                : request.kind(), "INVALID_RUN_KIND");
        long id = reconciliation.start(kind, Caller.current().id());
        return ResponseEntity.accepted().location(URI.create("/api/admin/reconciliation/runs/" + id))
                .body(Map.of("id", id, "kind", kind.name(), "state", "QUEUED"));
    }

    @GetMapping("/runs/{id}")
    Map<String, Object> run(@PathVariable long id) {
        return reconciliation.run(id);
    }

    @GetMapping("/incidents")
    List<Map<String, Object>> incidents(@RequestParam(required = false) String state, @RequestParam(required = false) String rule,
            @RequestParam(required = false) Long application) {
        return incidents.list(state, rule, application);
    }

    @GetMapping("/incidents/{id}")
    Map<String, Object> incident(@PathVariable long id) {
        return incidents.get(id);
    }

    @PostMapping("/incidents/{id}/propose")
    Map<String, Object> propose(@PathVariable long id, @RequestBody Proposal proposal) {
        incidents.propose(id, parse(Incidents.Fix.class, proposal.fix(), "INVALID_FIX"), proposal.note(), Caller.current().id());
        return incidents.get(id);
    }

    @PostMapping("/incidents/{id}/approve")
    Map<String, Object> approve(@PathVariable long id) {
        incidents.approve(id, Caller.current().id());
        return incidents.get(id);
    }

    @PostMapping("/incidents/{id}/execute")
    Map<String, Object> execute(@PathVariable long id, @RequestBody(required = false) Execution execution) {
        incidents.execute(id, execution == null ? null : execution.commandUsed(),
                execution == null ? null : execution.verification(), Caller.current().id());
        return incidents.get(id);
    }

    @PostMapping("/incidents/{id}/close")
    Map<String, Object> close(@PathVariable long id) {
        incidents.close(id, Caller.current().id());
        return incidents.get(id);
    }

    private static <E extends Enum<E>> E parse(Class<E> type, String value, String code) {
        return Arrays.stream(type.getEnumConstants()).filter(constant -> constant.name().equals(value)).findFirst()
                .orElseThrow(() -> ApiException.badRequest(code, "'" + value + "' is not one of "
                        + Arrays.toString(type.getEnumConstants()) + "."));
    }
}
