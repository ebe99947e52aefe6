package dev.lockstep.transactions.contention;

import dev.lockstep.platform.AreaApi;
import dev.lockstep.platform.StartupCheckFailure;
import dev.lockstep.platform.web.ApiException;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;

/**
 * Bounds how many requests of this node wait on one application at once. Each action holds a
 * connection of both XA pools while it waits for the application's row lock and the action fence:
 * the lock lives in the business branch and the fence reads the workflow through the engine, and
 * under JTA a branch's connection stays reserved to its transaction until it ends, so waiting without
 * them is not possible. Unbounded, a burst on one application whose row a prepared branch holds would
 * take every pooled connection for the lock timeout and stall all other applications; bounded, it
 * takes at most {@code lockstep.actions.max-concurrent-per-application}, and the rest are refused at
 * once. This is load shedding per node, not a rule about the data: the row lock and the fence still
 * decide who acts.
 */
@Component
@EnableConfigurationProperties(ActionWaitProperties.class)
@AreaApi
public class ApplicationWaiters {

    static final String SETTING = "lockstep.actions.max-concurrent-per-application";
    static final Duration RETRY_AFTER = Duration.ofSeconds(1);

    private final int limit;
    private final ConcurrentMap<Long, Integer> inside = new ConcurrentHashMap<>();

    ApplicationWaiters(ActionWaitProperties properties) {
        if (properties.maxConcurrentPerApplication() < 1) {
            throw new StartupCheckFailure(SETTING, "is " + properties.maxConcurrentPerApplication()
                    + "; at least one action per application must be able to run.",
                    "set it to 1 or more (default 4), below the XA pool sizes.");
        }
        this.limit = properties.maxConcurrentPerApplication();
    }

    /** A place among the actions on {@code applicationId}; close it when the action has its lock and fence (or failed). */
    public Slot enter(long applicationId) {
        boolean[] admitted = {false};
        inside.compute(applicationId, (id, count) -> {
            int current = count == null ? 0 : count;
            if (current >= limit) {
                return count;
            }
            admitted[0] = true;
            return current + 1;
        });
        if (!admitted[0]) {
            throw new ApiException(HttpStatus.SERVICE_UNAVAILABLE, "APPLICATION_BUSY",
                    limit + " actions on application " + applicationId + " are already waiting for it on this node;"
                            + " nothing was written. Retry later with the same Idempotency-Key.", RETRY_AFTER);
        }
        return () -> inside.computeIfPresent(applicationId, (id, count) -> count <= 1 ? null : count - 1);
    }

    /** Releases the place; never throws. */
    public interface Slot extends AutoCloseable {
        @Override
        void close();
    }
}
