package dev.lockstep.approval.application;

import dev.lockstep.approval.ApplicationView;
import dev.lockstep.platform.security.Caller;
import dev.lockstep.platform.security.Roles;
import dev.lockstep.platform.web.ApiException;
import dev.lockstep.transactions.usecase.Target;
import dev.lockstep.transactions.usecase.UseCase;
import dev.lockstep.transactions.usecase.UseCaseResult;
import dev.lockstep.transactions.usecase.UseCaseTransaction;
import jakarta.validation.Valid;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** Administrators' API. */
@RestController
@RequestMapping(path = "/api/admin/applications", produces = "application/json")
public class AdminController {

    private final ApplicationLifecycle lifecycle;
    private final UseCaseTransaction useCases;

    public AdminController(ApplicationLifecycle lifecycle, UseCaseTransaction useCases) {
        this.lifecycle = lifecycle;
        this.useCases = useCases;
    }

    @PostMapping(path = "/{id}/terminate", consumes = "application/json")
    public ResponseEntity<String> terminate(@PathVariable long id, @Valid @RequestBody ReasonRequest request,
            @RequestHeader(name = UseCaseTransaction.HEADER, required = false) String idempotencyKey) {
        if (!Caller.current().hasRole(Roles.ADMIN)) {
            throw ApiException.forbidden("FORBIDDEN", "Only administrators terminate applications.");
        }
        return useCases.run(UseCase.TERMINATE, Target.application(id), idempotencyKey, request, call -> {
            ApplicationView terminated = lifecycle.terminate(id, request.reason(), call);
            return UseCaseResult.ok(terminated, terminated.processInstanceId(), "CANCELED");
        });
    }
}
