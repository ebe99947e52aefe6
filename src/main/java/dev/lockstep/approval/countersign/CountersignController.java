package dev.lockstep.approval;

import dev.lockstep.idempotency.CommandOutcome;
import dev.lockstep.idempotency.CommandRequest;
import dev.lockstep.idempotency.IdempotentCommands;
import dev.lockstep.security.Caller;
import jakarta.validation.Valid;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** 加签 / 减签 on an application's running countersign step. */
@RestController
@RequestMapping(path = "/api/applications/{id}/countersign/signers", produces = "application/json")
public class CountersignController {

    private final ApprovalTasks tasks;
    private final IdempotentCommands commands;

    public CountersignController(ApprovalTasks tasks, IdempotentCommands commands) {
        this.tasks = tasks;
        this.commands = commands;
    }

    @PostMapping(consumes = "application/json")
    public ResponseEntity<String> add(@PathVariable long id, @Valid @RequestBody HandoverRequest request,
            @RequestHeader(name = IdempotentCommands.HEADER, required = false) String idempotencyKey) {
        Caller caller = Caller.current();
        return commands.execute(new CommandRequest(idempotencyKey, "ADD_SIGNER", Application.BUSINESS_TYPE, Long.toString(id),
                caller.id(), request), () -> outcome(tasks.addSigner(id, request, idempotencyKey, caller), "ADD_SIGNER"));
    }

    @PostMapping(path = "/remove", consumes = "application/json")
    public ResponseEntity<String> remove(@PathVariable long id, @Valid @RequestBody HandoverRequest request,
            @RequestHeader(name = IdempotentCommands.HEADER, required = false) String idempotencyKey) {
        Caller caller = Caller.current();
        return commands.execute(new CommandRequest(idempotencyKey, "REMOVE_SIGNER", Application.BUSINESS_TYPE, Long.toString(id),
                caller.id(), request), () -> outcome(tasks.removeSigner(id, request, idempotencyKey, caller), "REMOVE_SIGNER"));
    }

    private static CommandOutcome outcome(ApplicationView application, String resultCode) {
        return new CommandOutcome(HttpStatus.OK, application, null, application.processInstanceId(), resultCode);
    }
}
