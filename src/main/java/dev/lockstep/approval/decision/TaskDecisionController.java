package dev.lockstep.approval;

import dev.lockstep.idempotency.CommandOutcome;
import dev.lockstep.idempotency.CommandRequest;
import dev.lockstep.idempotency.IdempotentCommands;
import dev.lockstep.security.Caller;
import dev.lockstep.todo.TaskView;
import jakarta.validation.Valid;
import dev.lockstep.workflow.ReturnTarget;
import java.util.List;
import java.util.function.Supplier;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** Approvers' task actions: claim, decide, return to an earlier step, delegate and resolve, transfer. The lists are in the todo package. */
@RestController
@RequestMapping(path = "/api/tasks", produces = "application/json")
public class TaskController {

    private final ApprovalTasks tasks;
    private final IdempotentCommands commands;

    public TaskController(ApprovalTasks tasks, IdempotentCommands commands) {
        this.tasks = tasks;
        this.commands = commands;
    }

    @PostMapping("/{taskId}/claim")
    public TaskView claim(@PathVariable String taskId) {
        return tasks.claim(taskId, Caller.current());
    }

    @PostMapping(path = "/{taskId}/complete", consumes = "application/json")
    public ResponseEntity<String> complete(@PathVariable String taskId, @Valid @RequestBody DecisionRequest request,
            @RequestHeader(name = IdempotentCommands.HEADER, required = false) String idempotencyKey) {
        Caller caller = Caller.current();
        return commands.execute(
                new CommandRequest(idempotencyKey, "COMPLETE", "TASK", taskId, caller.id(), request),
                () -> {
                    ApplicationView application = tasks.complete(taskId, request, idempotencyKey, caller);
                    return new CommandOutcome(HttpStatus.OK, application, null, application.processInstanceId(),
                            request.decision().name());
                });
    }

    @GetMapping("/{taskId}/return-targets")
    public ReturnTargets returnTargets(@PathVariable String taskId) {
        return new ReturnTargets(taskId, tasks.returnTargets(taskId, Caller.current()));
    }

    @PostMapping(path = "/{taskId}/return", consumes = "application/json")
    public ResponseEntity<String> returnTo(@PathVariable String taskId, @Valid @RequestBody ReturnRequest request,
            @RequestHeader(name = IdempotentCommands.HEADER, required = false) String idempotencyKey) {
        Caller caller = Caller.current();
        return commands.execute(new CommandRequest(idempotencyKey, "RETURN", "TASK", taskId, caller.id(), request),
                () -> {
                    ApplicationView application = tasks.returnTo(taskId, request, idempotencyKey, caller);
                    return new CommandOutcome(HttpStatus.OK, application, null, application.processInstanceId(),
                            request.mode().name());
                });
    }

    /** The steps a task can be returned to. */
    public record ReturnTargets(String taskId, List<ReturnTarget> targets) {
    }

    @PostMapping(path = "/{taskId}/delegate", consumes = "application/json")
    public ResponseEntity<String> delegate(@PathVariable String taskId, @Valid @RequestBody HandoverRequest request,
            @RequestHeader(name = IdempotentCommands.HEADER, required = false) String idempotencyKey) {
        Caller caller = Caller.current();
        return handover("DELEGATE", taskId, request, idempotencyKey, caller,
                () -> tasks.delegate(taskId, request, idempotencyKey, caller));
    }

    @PostMapping(path = "/{taskId}/resolve", consumes = "application/json")
    public ResponseEntity<String> resolve(@PathVariable String taskId, @Valid @RequestBody CommentRequest request,
            @RequestHeader(name = IdempotentCommands.HEADER, required = false) String idempotencyKey) {
        Caller caller = Caller.current();
        return handover("RESOLVE", taskId, request, idempotencyKey, caller,
                () -> tasks.resolve(taskId, request, idempotencyKey, caller));
    }

    @PostMapping(path = "/{taskId}/transfer", consumes = "application/json")
    public ResponseEntity<String> transfer(@PathVariable String taskId, @Valid @RequestBody HandoverRequest request,
            @RequestHeader(name = IdempotentCommands.HEADER, required = false) String idempotencyKey) {
        Caller caller = Caller.current();
        return handover("TRANSFER", taskId, request, idempotencyKey, caller,
                () -> tasks.transfer(taskId, request, idempotencyKey, caller));
    }

    private ResponseEntity<String> handover(String commandType, String taskId, Object request, String idempotencyKey,
            Caller caller, Supplier<TaskView> action) {
        return commands.execute(new CommandRequest(idempotencyKey, commandType, "TASK", taskId, caller.id(), request),
                () -> {
                    TaskView task = action.get();
                    return new CommandOutcome(HttpStatus.OK, task, null, task.processInstanceId(), commandType);
                });
    }
}
