package dev.lockstep.approval.todo;

import dev.lockstep.platform.security.Caller;
import dev.lockstep.transactions.businessonly.BusinessOnlyTransactions;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * The todo and done lists: read from the projection only, never from engine queries, so in a local
 * transaction of the business database (no JTA transaction, no coordinator log).
 */
@Service
@Transactional(transactionManager = BusinessOnlyTransactions.MANAGER, readOnly = true)
public class TaskLists {

    private final TaskProjection projection;

    public TaskLists(TaskProjection projection) {
        this.projection = projection;
    }

    public TaskPage todo(Caller caller, TaskFilter filter, String cursor, int size) {
        return projection.todo(caller.id(), caller.groups(), filter, cursor, size);
    }

    public TaskPage done(Caller caller, TaskFilter filter, String cursor, int size) {
        return projection.done(caller.id(), filter, cursor, size);
    }
}
