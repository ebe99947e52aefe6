package dev.lockstep.approval;

import dev.lockstep.idempotency.CommandOutcome;
import dev.lockstep.idempotency.CommandRequest;
import dev.lockstep.idempotency.IdempotentCommands;
import dev.lockstep.security.Caller;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.util.List;
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

/** Approvers' API: the todo list, claiming and deciding tasks. */
@RestController
@RequestMapping(path = "/api/tasks", produces = "application/json")
public class TaskController {

    private final ApprovalTasks tasks;
    private final IdempotentCommands commands;

    public TaskController(ApprovalTasks tasks, IdempotentCommands commands) {
        this.tasks = tasks;
        this.commands = commands;
    }

    @GetMapping
    public List<TaskView> todo(@RequestParam(defaultValue = "0") @Min(0) int page,
            @RequestParam(defaultValue = "20") @Min(1) @Max(100) int size) {
        return tasks.todo(Caller.current(), page, size);
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
}
