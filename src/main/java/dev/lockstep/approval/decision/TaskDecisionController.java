package dev.lockstep.approval.decision;

import dev.lockstep.approval.ApplicationView;
import dev.lockstep.approval.todo.TaskView;
import dev.lockstep.platform.security.Caller;
import dev.lockstep.transactions.usecase.Target;
import dev.lockstep.transactions.usecase.UseCase;
import dev.lockstep.transactions.usecase.UseCaseCall;
import dev.lockstep.transactions.usecase.UseCaseResult;
import dev.lockstep.transactions.usecase.UseCaseTransaction;
import dev.lockstep.transactions.workflow.ReturnTarget;
import jakarta.validation.Valid;
import java.util.List;
import java.util.function.BiFunction;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** Approvers' decisions on a task: claim or unclaim, approve or reject, return to an earlier step. The lists are in the todo package. */
@RestController
@RequestMapping(path = "/api/tasks", produces = "application/json")
public class TaskDecisionController {

    private final TaskDecisions decisions;
    private final UseCaseTransaction useCases;

    public TaskDecisionController(TaskDecisions decisions, UseCaseTransaction useCases) {
        this.decisions = decisions;
        this.useCases = useCases;
    }

    @PostMapping("/{taskId}/claim")
    public ResponseEntity<String> claim(@PathVariable String taskId) {
        return taskInHand(UseCase.CLAIM, taskId, decisions::claim);
    }

    /** Gives a claimed task back to its candidate groups. */
    @PostMapping("/{taskId}/unclaim")
    public ResponseEntity<String> unclaim(@PathVariable String taskId) {
        return taskInHand(UseCase.UNCLAIM, taskId, decisions::unclaim);
    }

    /** Claim and unclaim: no body and no Idempotency-Key (a repeat changes nothing); the answer is the task as projected. */
    private ResponseEntity<String> taskInHand(UseCase useCase, String taskId, BiFunction<String, UseCaseCall, TaskView> command) {
        return useCases.run(useCase, Target.task(taskId), null, null, call -> {
            TaskView task = command.apply(taskId, call);
            return UseCaseResult.ok(task, task.processInstanceId(), useCase.commandType());
        });
    }

    @PostMapping(path = "/{taskId}/complete", consumes = "application/json")
    public ResponseEntity<String> complete(@PathVariable String taskId, @Valid @RequestBody DecisionRequest request,
            @RequestHeader(name = UseCaseTransaction.HEADER, required = false) String idempotencyKey) {
        return useCases.run(UseCase.COMPLETE, Target.task(taskId), idempotencyKey, request, call -> {
            ApplicationView application = decisions.complete(taskId, request, call);
            return UseCaseResult.ok(application, application.processInstanceId(), request.decision().name());
        });
    }

    @GetMapping("/{taskId}/return-targets")
    public ReturnTargets returnTargets(@PathVariable String taskId) {
        return new ReturnTargets(taskId, decisions.returnTargets(taskId, Caller.current()));
    }

    @PostMapping(path = "/{taskId}/return", consumes = "application/json")
    public ResponseEntity<String> returnTo(@PathVariable String taskId, @Valid @RequestBody ReturnRequest request,
            @RequestHeader(name = UseCaseTransaction.HEADER, required = false) String idempotencyKey) {
        return useCases.run(UseCase.RETURN, Target.task(taskId), idempotencyKey, request, call -> {
            ApplicationView application = decisions.returnTo(taskId, request, call);
            return UseCaseResult.ok(application, application.processInstanceId(), request.mode().name());
        });
    }

    /** The steps a task can be returned to. */
    public record ReturnTargets(String taskId, List<ReturnTarget> targets) {
    }
}
