package dev.lockstep.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A Byteman rule that holds every submit inside its transaction, for the drain tests: the service process prints
 * {@link #HELD} once per held submit, so a test knows its requests are in flight before it stops the node.
 */
public final class HeldSubmits {

    public static final String HELD = "DRAIN-TEST holding submit";

    private HeldSubmits() {
    }

    /** Writes the rule under {@code directory}, holding each submit for {@code hold}; returns its file. */
    public static Path rule(Path directory, Duration hold) throws IOException {
        Path rules = directory.resolve("hold-submit.btm");
        Files.writeString(rules, """
                RULE hold a submit inside its transaction
                CLASS dev.lockstep.approval.application.ApplicationLifecycle
                METHOD submit
                AT EXIT
                IF true
                DO traceln("%s of " + $1);
                   delay(%d)
                ENDRULE
                """.formatted(HELD, hold.toMillis()));
        return rules;
    }

    /** How many submits the service has held so far, from its output. */
    public static long held(ServiceProcess service) {
        return service.output().lines().filter(line -> line.contains(HELD)).count();
    }
}
