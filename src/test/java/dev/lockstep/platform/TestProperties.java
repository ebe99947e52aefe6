package dev.lockstep.platform;


import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/** Binds {@code lockstep.*} the way the service does, so tests get the same defaults. */
public final class TestProperties {

    private TestProperties() {
    }

    /** The embedded default under {@code home}, on random ports. */
    public static LockstepProperties embeddedAt(Path home, Map<String, String> overrides) {
        Map<String, String> values = new HashMap<>(Map.of(
                "lockstep.home", home.toString(),
                "lockstep.embedded.business-port", "0",
                "lockstep.embedded.workflow-port", "0"));
        values.putAll(overrides);
        return new Binder(new MapConfigurationPropertySource(values)).bindOrCreate("lockstep", LockstepProperties.class);
    }
}
