package dev.lockstep.fuzz;

import java.security.SecureRandom;
import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;

/**
 * How many requests the fuzz run sends and from which seed: {@code -Dfuzz.requests} (default 1,000; the
 * {@code fuzz} Maven profile sends 10,000) and {@code -Dfuzz.seed} (default: a fresh random one). The seed
 * is printed before the run and named in every failure, so a run can be repeated exactly.
 */
public class FuzzSettings implements AroundPropertyHook {

    static final int DEFAULT_REQUESTS = 1_000;

    /** The seed of the run in progress, for failure messages. */
    static volatile String seed;

    @Override
    public PropertyExecutionResult aroundProperty(PropertyLifecycleContext context, PropertyExecutor property) {
        String chosen = System.getProperty("fuzz.seed", Long.toString(new SecureRandom().nextLong()));
        int requests = Integer.getInteger("fuzz.requests", DEFAULT_REQUESTS);
        context.attributes().setSeed(chosen);
        context.attributes().setTries(requests);
        seed = chosen;
        System.out.printf("API fuzz: %d requests, seed %s (repeat with -Dfuzz.seed=%s)%n", requests, chosen, chosen);
        return property.execute();
    }
}
