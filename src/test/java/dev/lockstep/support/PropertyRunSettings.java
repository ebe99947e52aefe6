package dev.lockstep.support;

import java.security.SecureRandom;
import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;

/**
 * Tries and seed of a property run through the real service, from {@code -D<prefix>.tries} and {@code -D<prefix>.seed}.
 * The seed is fixed unless told otherwise, so a red build is never luck ({@code random} asks for a fresh one); both are
 * printed before the run, with the line that repeats it. A property names its subclass in {@code @AddLifecycleHook}.
 */
public abstract class PropertyRunSettings implements AroundPropertyHook {

    private final String title;
    private final String prefix;
    private final String buildSeed;
    private final int buildTries;

    protected PropertyRunSettings(String title, String prefix, String buildSeed, int buildTries) {
        this.title = title;
        this.prefix = prefix;
        this.buildSeed = buildSeed;
        this.buildTries = buildTries;
    }

    @Override
    public PropertyExecutionResult aroundProperty(PropertyLifecycleContext context, PropertyExecutor property) {
        String given = System.getProperty(prefix + ".seed", buildSeed);
        String seed = "random".equals(given) ? Long.toString(new SecureRandom().nextLong()) : given;
        int tries = Integer.getInteger(prefix + ".tries", buildTries);
        context.attributes().setSeed(seed);
        context.attributes().setTries(tries);
        System.out.printf("%s: %d tries, seed %s (repeat with -D%s.seed=%s)%n", title, tries, seed, prefix, seed);
        beforeRun();
        return afterRun(property.execute(), tries);
    }

    /** Called before the first try, e.g. to reset what the property counts. */
    protected void beforeRun() {
    }

    /** The run's result as reported; a property may fail a run that passed but did not exercise what it is for. */
    protected PropertyExecutionResult afterRun(PropertyExecutionResult result, int tries) {
        return result;
    }
}
