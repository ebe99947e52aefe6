package dev.lockstep.platform;

/**
 * A configuration that Lockstep refuses to run with. It names the setting at fault and how to fix
 * it; {@link StartupCheckFailureAnalyzer} prints both when the context stops.
 */
public class StartupCheckFailure extends RuntimeException {

    private final String setting;
    private final String fix;

    public StartupCheckFailure(String setting, String problem, String fix) {
        super(setting + ": " + problem + " Fix: " + fix);
        this.setting = setting;
        this.fix = fix;
    }

    public String setting() {
        return setting;
    }

    public String fix() {
        return fix;
    }
}
