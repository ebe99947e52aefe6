package dev.lockstep.approval.application;

import dev.lockstep.approval.ApplicationView;
import dev.lockstep.approval.ApprovalStatus;
import dev.lockstep.platform.security.Caller;
import dev.lockstep.transactions.usecase.Target;
import dev.lockstep.transactions.usecase.UseCase;
import dev.lockstep.transactions.usecase.UseCaseResult;
import dev.lockstep.transactions.usecase.UseCaseTransaction;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.util.List;
import org.springframework.data.domain.Page;
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
    private final UseCaseTransaction useCases;

    public ApplicationController(ApplicationLifecycle lifecycle, ApplicationQueries queries, UseCaseTransaction useCases) {
        this.lifecycle = lifecycle;
        this.queries = queries;
        this.useCases = useCases;
    }

    @PostMapping(consumes = "application/json")
    public ResponseEntity<String> create(@Valid @RequestBody CreateApplicationRequest request,
            @RequestHeader(name = UseCaseTransaction.HEADER, required = false) String idempotencyKey) {
        Long mappedAssetId = lifecycle.checkType(request);
        return useCases.run(UseCase.CREATE, Target.newApplication(), idempotencyKey, request, call -> {
            ApplicationView created = lifecycle.createDraft(request, mappedAssetId, call);
            return UseCaseResult.created(created, Long.toString(created.id()), "DRAFT");
        });
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
            @RequestHeader(name = UseCaseTransaction.HEADER, required = false) String idempotencyKey) {
        return useCases.run(UseCase.SUBMIT, Target.application(id), idempotencyKey, null, call -> {
            ApplicationView submitted = lifecycle.submit(id, call);
            return UseCaseResult.ok(submitted, submitted.processInstanceId(), submitted.approvalStatus().name());
        });
    }

    @PostMapping(path = "/{id}/withdraw", consumes = "application/json")
    public ResponseEntity<String> withdraw(@PathVariable long id, @Valid @RequestBody ReasonRequest request,
            @RequestHeader(name = UseCaseTransaction.HEADER, required = false) String idempotencyKey) {
        return useCases.run(UseCase.WITHDRAW, Target.application(id), idempotencyKey, request, call -> {
            ApplicationView withdrawn = lifecycle.withdraw(id, request.reason(), call);
            return UseCaseResult.ok(withdrawn, withdrawn.processInstanceId(), "CANCELED");
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
