package dev.lockstep.approval.todo;

import java.util.List;

/** One page of a task list; pass {@code nextCursor} back as {@code cursor} for the next one (null: no more). */
public record TaskPage(List<TaskView> items, String nextCursor) {
}
