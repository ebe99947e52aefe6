package dev.lockstep.approval.todo;

import dev.lockstep.platform.security.Caller;
import dev.lockstep.platform.security.Roles;
import dev.lockstep.platform.web.ApiException;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import org.springdoc.core.annotations.ParameterObject;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The caller's todo and done lists, read from the projection only, never from engine queries: each page is one
 * statement of the business database, read outside any transaction. And the administrators' projection rebuild.
 */
@RestController
public class TodoController {

    private final TaskProjection projection;
    private final TaskProjectionRebuild rebuild;

    public TodoController(TaskProjection projection, TaskProjectionRebuild rebuild) {
        this.projection = projection;
        this.rebuild = rebuild;
    }

    /** Filters are read from query parameters named like {@link TaskFilter}'s components ({@link TaskFilterResolver}), and described so. */
    @GetMapping(path = "/api/tasks", produces = "application/json")
    public TaskPage todo(@ParameterObject TaskFilter filter, @RequestParam(required = false) String cursor,
            @RequestParam(defaultValue = "20") @Min(1) @Max(100) int size) {
        Caller caller = Caller.current();
        return projection.todo(caller.id(), caller.groups(), filter, cursor, size);
    }

    @GetMapping(path = "/api/tasks/done", produces = "application/json")
    public TaskPage done(@ParameterObject TaskFilter filter, @RequestParam(required = false) String cursor,
            @RequestParam(defaultValue = "20") @Min(1) @Max(100) int size) {
        return projection.done(Caller.current().id(), filter, cursor, size);
    }

    /** Every application's rows written again from the engine, {@code batchSize} applications per audited transaction. */
    @PostMapping(path = "/api/admin/task-projection/rebuild", produces = "application/json")
    public TaskProjectionRebuild.Result rebuild(@RequestParam(defaultValue = "50") @Min(1) @Max(500) int batchSize) {
        Caller caller = Caller.current();
        if (!caller.hasRole(Roles.ADMIN)) {
            throw ApiException.forbidden("FORBIDDEN", "Only administrators rebuild the task projection.");
        }
        return rebuild.rebuildAll(batchSize, caller.id());
    }
}
