package dev.lockstep.approval.handover;

import dev.lockstep.approval.todo.TaskView;
import dev.lockstep.transactions.usecase.Target;
import dev.lockstep.transactions.usecase.UseCase;
import dev.lockstep.transactions.usecase.UseCaseCall;
import dev.lockstep.transactions.usecase.UseCaseResult;
import dev.lockstep.transactions.usecase.UseCaseTransaction;
import jakarta.validation.Valid;
import java.util.function.Function;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** Handing a task over: delegate and resolve back, or transfer. */
@RestController
@RequestMapping(path = "/api/tasks", produces = "application/json")
public class TaskHandoverController {

    private final TaskHandovers handovers;
    private final UseCaseTransaction useCases;

    public TaskHandoverController(TaskHandovers handovers, UseCaseTransaction useCases) {
        this.handovers = handovers;
        this.useCases = useCases;
    }

    @PostMapping(path = "/{taskId}/delegate", consumes = "application/json")
    public ResponseEntity<String> delegate(@PathVariable String taskId, @Valid @RequestBody HandoverRequest request,
            @RequestHeader(name = UseCaseTransaction.HEADER, required = false) String idempotencyKey) {
        return handover(UseCase.DELEGATE, taskId, request, idempotencyKey, call -> handovers.delegate(taskId, request, call));
    }

    @PostMapping(path = "/{taskId}/resolve", consumes = "application/json")
    public ResponseEntity<String> resolve(@PathVariable String taskId, @Valid @RequestBody CommentRequest request,
            @RequestHeader(name = UseCaseTransaction.HEADER, required = false) String idempotencyKey) {
        return handover(UseCase.RESOLVE, taskId, request, idempotencyKey, call -> handovers.resolve(taskId, request, call));
    }

    @PostMapping(path = "/{taskId}/transfer", consumes = "application/json")
    public ResponseEntity<String> transfer(@PathVariable String taskId, @Valid @RequestBody HandoverRequest request,
            @RequestHeader(name = UseCaseTransaction.HEADER, required = false) String idempotencyKey) {
        return handover(UseCase.TRANSFER, taskId, request, idempotencyKey, call -> handovers.transfer(taskId, request, call));
    }

    private ResponseEntity<String> handover(UseCase useCase, String taskId, Object request, String idempotencyKey,
            Function<UseCaseCall, TaskView> action) {
        return useCases.run(useCase, Target.task(taskId), idempotencyKey, request, call -> {
            TaskView task = action.apply(call);
            return UseCaseResult.ok(task, task.processInstanceId(), useCase.commandType());
        });
    }
}
