package dev.lockstep.chaos.support;

/** The suite's waits between polls: an interrupt ends the scenario instead of being swallowed. */
public final class Pause {

    private Pause() {
    }

    public static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
