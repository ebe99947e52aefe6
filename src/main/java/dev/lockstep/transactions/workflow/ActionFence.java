package dev.lockstep.transactions.workflow;

import dev.lockstep.platform.AreaApi;
import dev.lockstep.platform.web.ApiException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.activiti.engine.RuntimeService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;

/**
 * Makes the action that takes an application's row lock see the workflow as its predecessor left it.
 *
 * <p>Actions on one application are serialized by its business row lock, but the two branches of the
 * predecessor's XA transaction commit separately: at the same time with parallel commit (the default;
 * either may finish first), or one after the other, business first, with it off. The business commit
 * can thus release the lock a moment before the predecessor's ACT_* changes become visible. Read in
 * that moment, the process looks as it was before the
 * predecessor acted: a task it completed still open, a claim not yet made. So each action carries a
 * sequence number in both databases — {@code application.action_seq}, counted up with the lock, and
 * the process variable {@value #VARIABLE} — and waits until the workflow shows the predecessor's.
 */
@Component
@AreaApi
public class ActionFence {

    private static final Logger log = LoggerFactory.getLogger(ActionFence.class);

    /** Process variable: the number of the last action on this run that the workflow database holds. */
    public static final String VARIABLE = "lockstepActionSeq";

    /** Commit of the workflow branch normally follows the business one within milliseconds. */
    static final Duration PREDECESSOR_WAIT = Duration.ofSeconds(10);

    private final RuntimeService runtime;

    public ActionFence(RuntimeService runtime) {
        this.runtime = runtime;
    }

    /**
     * Called right after the row lock counted this action as number {@code actionSeq}: waits until the
     * workflow holds action {@code actionSeq - 1}, then records this one in the same XA transaction.
     *
     * @throws PredecessorNotVisibleException when the predecessor's workflow commit stays invisible
     *         (the workflow database stalled in the commit phase; recovery will finish it)
     */
    public void enter(String processInstanceId, long actionSeq) {
        enter(processInstanceId, actionSeq, PREDECESSOR_WAIT);
    }

    /**
     * As {@link #enter}, for an action inside a timer job's engine command: that command loaded the run's
     * variables before the action took the row lock and keeps reading them from its cache, so waiting
     * cannot reveal the predecessor. Refuses at once instead; the job executor retries the job later.
     */
    public void enterWithoutWaiting(String processInstanceId, long actionSeq) {
        enter(processInstanceId, actionSeq, Duration.ZERO);
    }

    private void enter(String processInstanceId, long actionSeq, Duration wait) {
        long previous = actionSeq - 1;
        long deadline = System.nanoTime() + wait.toNanos();
        long pauseMillis = 1;
        // A run started before the sequence existed has no variable (seen = previous); from now on it has one.
        long seen;
        while ((seen = seen(processInstanceId, previous)) < previous) {
            if (System.nanoTime() > deadline) {
                throw new PredecessorNotVisibleException(processInstanceId, previous, seen, wait);
            }
            pause(pauseMillis);
            pauseMillis = Math.min(pauseMillis * 2, 50);
        }
        if (seen != previous) {
            throw new IllegalStateException("process " + processInstanceId + " holds action " + seen + " but the business row counts "
                    + previous + "; the two databases disagree on this run's history");
        }
        runtime.setVariable(processInstanceId, VARIABLE, actionSeq);
    }

    /**
     * The number of the last action each of these running processes holds, through the engine's API; a run started
     * before the sequence existed has none and is absent. What reconciliation and the mismatch check compare with
     * {@code application.action_seq}.
     */
    public static Map<String, Long> countsHeld(RuntimeService runtime, Set<String> processInstanceIds) {
        Map<String, Long> counts = new HashMap<>();
        if (processInstanceIds.isEmpty()) {
            return counts;
        }
        // a process variable belongs to the process instance's own execution, whose id is the instance's
        runtime.getVariableInstancesByExecutionIds(processInstanceIds).stream()
                .filter(variable -> variable.getName().equals(VARIABLE) && variable.getValue() != null)
                .forEach(variable -> counts.put(variable.getExecutionId(), ((Number) variable.getValue()).longValue()));
        return counts;
    }

    private long seen(String processInstanceId, long whenAbsent) {
        Object value = runtime.getVariable(processInstanceId, VARIABLE);
        return value == null ? whenAbsent : ((Number) value).longValue();
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PredecessorNotVisibleException();
        }
    }

    /**
     * The previous action on the run committed in the business database but not (yet) in the workflow
     * one: 503 WORKFLOW_COMMIT_PENDING, nothing written, retry later.
     */
    public static class PredecessorNotVisibleException extends ApiException {

        PredecessorNotVisibleException(String processInstanceId, long expected, long seen, Duration waited) {
            this();
            log.warn("process {} still shows action {} after {} s; the business database already holds action {}",
                    processInstanceId, seen, waited.toSeconds(), expected);
        }

        PredecessorNotVisibleException() {
            super(HttpStatus.SERVICE_UNAVAILABLE, "WORKFLOW_COMMIT_PENDING", "The previous action on this application has not"
                    + " finished committing in the workflow database; nothing was written. Retry later with the same"
                    + " Idempotency-Key.", Duration.ofSeconds(1));
        }
    }
}
