package dev.lockstep.transactions.workflow;

import dev.lockstep.platform.AreaApi;

/** An earlier step a task may be returned to: a user task, or the fork of a parallel section (both branches re-run). */
@AreaApi
public record ReturnTarget(String id, String name) {
}
