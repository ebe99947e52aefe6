package dev.lockstep.approval.todo;

import java.time.Instant;
import org.activiti.engine.task.Task;

/**
 * The final deadline the step-deadline policy gives an open task (approval.deadlines), for a rewrite of the projection:
 * the deadline scan fires it from the task's row, so a row the projection had lost gets it back.
 */
public interface FinalDeadlines {

    /** When {@code task} meets its final deadline, counted from its creation; null when its step has none from the policy. */
    Instant of(Task task);
}
