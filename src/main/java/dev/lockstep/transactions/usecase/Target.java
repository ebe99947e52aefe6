package dev.lockstep.transactions.usecase;

import dev.lockstep.platform.AreaApi;

/** What a use case acts on, as the command record names it: an application or a task, by id. */
@AreaApi
public record Target(String type, String id) {

    public static final String APPLICATION = "APPLICATION";
    public static final String TASK = "TASK";

    public static Target application(long applicationId) {
        return new Target(APPLICATION, Long.toString(applicationId));
    }

    /** An application the use case is about to create: its id is known only from the result. */
    public static Target newApplication() {
        return new Target(APPLICATION, null);
    }

    public static Target task(String taskId) {
        return new Target(TASK, taskId);
    }
}
