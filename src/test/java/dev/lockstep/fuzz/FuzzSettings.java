package dev.lockstep.fuzz;

import java.security.SecureRandom;
import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;

/**
 * How many requests the fuzz run sends and from which seed: {@code -Dfuzz.requests} (default 1,000; the
 * {@code fuzz} Maven profile sends 10,000) and {@code -Dfuzz.seed} (default: a fixed seed, so that every build
 * sends the same requests and a red build is never luck; {@code random}, the {@code fuzz} profile's default, a
 * fresh one). The seed is printed before the run and named in every failure, so a run can be repeated exactly.
 */
public class FuzzSettings implements AroundPropertyHook {

    static final int DEFAULT_REQUESTS = 1_000;
    /** The seed that found the oversized-head finding (docs/security.md), kept as the build's regression run. */
    static final String BUILD_SEED = "1037106837709749548";

    /** The seed of the run in progress, for failure messages. */
    static volatile String seed;

    @Override
    public PropertyExecutionResult aroundProperty(PropertyLifecycleContext context, PropertyExecutor property) {
        String given = System.getProperty("fuzz.seed", BUILD_SEED);
        String chosen = "random".equals(given) ? Long.toString(new SecureRandom().nextLong()) : given;
        int requests = Integer.getInteger("fuzz.requests", DEFAULT_REQUESTS);
        context.attributes().setSeed(chosen);
        context.attributes().setTries(requests);
        seed = chosen;
        System.out.printf("API fuzz: %d requests, seed %s (repeat with -Dfuzz.seed=%s)%n", requests, chosen, chosen);
        return property.execute();
    }
}
