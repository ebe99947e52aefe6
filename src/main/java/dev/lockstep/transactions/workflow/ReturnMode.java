package dev.lockstep.transactions.workflow;

import dev.lockstep.platform.AreaApi;

/**
 * What happens after the step an application was returned to is redone (seed 003: "go back through
 * 3 and 4, or straight back to 5").
 */
@AreaApi
public enum ReturnMode {
    /** The process continues along its normal path, re-running the steps in between. */
    RERUN,
    /** The process goes straight back to the step that returned it (its fork, if it ran in parallel). */
    JUMP_BACK
}
