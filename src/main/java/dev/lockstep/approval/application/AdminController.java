package dev.lockstep.approval;

import dev.lockstep.idempotency.CommandOutcome;
import dev.lockstep.idempotency.CommandRequest;
import dev.lockstep.idempotency.IdempotentCommands;
import dev.lockstep.security.Caller;
import dev.lockstep.security.Roles;
import dev.lockstep.web.ApiException;
import jakarta.validation.Valid;
import org.springframework.http.HttpStatus;
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
    private final IdempotentCommands commands;

    public AdminController(ApplicationLifecycle lifecycle, IdempotentCommands commands) {
        this.lifecycle = lifecycle;
        this.commands = commands;
    }

    @PostMapping(path = "/{id}/terminate", consumes = "application/json")
    public ResponseEntity<String> terminate(@PathVariable long id, @Valid @RequestBody ReasonRequest request,
            @RequestHeader(name = IdempotentCommands.HEADER, required = false) String idempotencyKey) {
        Caller caller = Caller.current();
        if (!caller.hasRole(Roles.ADMIN)) {
            throw ApiException.forbidden("FORBIDDEN", "Only administrators terminate applications.");
        }
        return commands.executeIfKeyed(
                new CommandRequest(idempotencyKey, "TERMINATE", Application.BUSINESS_TYPE, Long.toString(id), caller.id(), request),
                () -> {
                    ApplicationView terminated = lifecycle.terminate(id, request.reason(), caller, idempotencyKey);
                    return new CommandOutcome(HttpStatus.OK, terminated, null, terminated.processInstanceId(), "CANCELED");
                });
    }
}
