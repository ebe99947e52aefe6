package dev.lockstep.approval;

import dev.lockstep.idempotency.CommandOutcome;
import dev.lockstep.idempotency.CommandRequest;
import dev.lockstep.idempotency.IdempotentCommands;
import dev.lockstep.security.Caller;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.util.List;
import org.springframework.data.domain.Page;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** Applicants' API: drafts, submission, withdrawal, and reading applications. */
@RestController
@RequestMapping(path = "/api/applications", produces = "application/json")
public class ApplicationController {

    private final ApplicationLifecycle lifecycle;
    private final ApplicationQueries queries;
    private final IdempotentCommands commands;

    public ApplicationController(ApplicationLifecycle lifecycle, ApplicationQueries queries, IdempotentCommands commands) {
        this.lifecycle = lifecycle;
        this.queries = queries;
        this.commands = commands;
    }

    @PostMapping(consumes = "application/json")
    public ResponseEntity<String> create(@Valid @RequestBody CreateApplicationRequest request,
            @RequestHeader(name = IdempotentCommands.HEADER, required = false) String idempotencyKey) {
        Caller caller = Caller.current();
        ResponseEntity<String> response = commands.executeIfKeyed(
                new CommandRequest(idempotencyKey, "CREATE", Application.BUSINESS_TYPE, null, caller.id(), request),
                () -> {
                    ApplicationView created = lifecycle.createDraft(request, caller);
                    return new CommandOutcome(HttpStatus.CREATED, created, Long.toString(created.id()), null, "DRAFT");
                });
        return response;
    }

    @GetMapping("/{id}")
    public ApplicationDetails get(@PathVariable long id) {
        return queries.details(id, Caller.current());
    }

    @GetMapping
    public PageView<ApplicationView> search(@RequestParam(required = false) String applicant,
            @RequestParam(required = false) ApprovalStatus status,
            // bounded so that page * size stays a row offset the database query can take
            @RequestParam(defaultValue = "0") @Min(0) @Max(100_000) int page,
            @RequestParam(defaultValue = "20") @Min(1) @Max(100) int size) {
        return PageView.of(queries.search(applicant, status, page, size, Caller.current()));
    }

    @PostMapping("/{id}/submit")
    public ResponseEntity<String> submit(@PathVariable long id,
            @RequestHeader(name = IdempotentCommands.HEADER, required = false) String idempotencyKey) {
        Caller caller = Caller.current();
        return commands.execute(
                new CommandRequest(idempotencyKey, "SUBMIT", Application.BUSINESS_TYPE, Long.toString(id), caller.id(), null),
                () -> {
                    ApplicationView submitted = lifecycle.submit(id, caller, idempotencyKey);
                    return new CommandOutcome(HttpStatus.OK, submitted, null, submitted.processInstanceId(),
                            submitted.approvalStatus().name());
                });
    }

    @PostMapping(path = "/{id}/withdraw", consumes = "application/json")
    public ResponseEntity<String> withdraw(@PathVariable long id, @Valid @RequestBody ReasonRequest request,
            @RequestHeader(name = IdempotentCommands.HEADER, required = false) String idempotencyKey) {
        Caller caller = Caller.current();
        return commands.executeIfKeyed(
                new CommandRequest(idempotencyKey, "WITHDRAW", Application.BUSINESS_TYPE, Long.toString(id), caller.id(), request),
                () -> {
                    ApplicationView withdrawn = lifecycle.withdraw(id, request.reason(), caller, idempotencyKey);
                    return new CommandOutcome(HttpStatus.OK, withdrawn, null, withdrawn.processInstanceId(), "CANCELED");
                });
    }

    /** One page of a list, with the totals a client needs to page through it. */
    public record PageView<T>(List<T> items, int page, int size, long totalItems, int totalPages) {

        static <T> PageView<T> of(Page<T> page) {
            return new PageView<>(page.getContent(), page.getNumber(), page.getSize(), page.getTotalElements(),
                    page.getTotalPages());
        }
    }
}
