package dev.lockstep.platform;

import java.time.Duration;

/**
 * A configuration that Lockstep refuses to run with. It names the setting at fault and how to fix
 * it; {@link StartupCheckFailureAnalyzer} prints both when the context stops.
 */
@AreaApi
public class StartupCheckFailure extends RuntimeException {

    private final String setting;
    private final String fix;

    public StartupCheckFailure(String setting, String problem, String fix) {
        super(setting + ": " + problem + " Fix: " + fix);
        this.setting = setting;
        this.fix = fix;
    }

    /**
     * Refuses a zero, negative or missing duration: every timeout, lease and deadline Lockstep reads must be positive.
     *
     * @param example a value to suggest in the fix, such as {@code 5s}
     */
    public static void requirePositive(String setting, Duration value, String example) {
        if (value == null || value.isZero() || value.isNegative()) {
            throw new StartupCheckFailure(setting, "is " + value + "; it must be positive.", "set a positive duration such as " + example + ".");
        }
    }

    public String setting() {
        return setting;
    }

    public String fix() {
        return fix;
    }
}
