package dev.lockstep.transactions.xa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.platform.LockstepProperties;
import dev.lockstep.platform.StartupCheckFailure;
import dev.lockstep.platform.TransactionMode;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * The chaos suite's negative control (two local commits instead of two-phase commit) cannot be switched on in
 * production: outside the Spring profile {@code chaos} the service refuses to start and names the setting. What the
 * mode does to the databases is shown by the chaos suite's {@code NegativeControlChaosIT}, against real servers.
 */
class LocalCommitNegativeControlTest {

    @Test
    void xaIsTheDefaultAndNeedsNoProfile() {
        StandardEnvironment environment = environment(Map.of());
        LockstepProperties properties = bind(environment);

        assertThat(properties.tm().transactionMode()).isEqualTo(TransactionMode.XA);
        LocalCommitNegativeControl.verify(properties, environment);
    }

    @Test
    void localOutsideTheChaosProfileStopsTheStartupNamingTheSetting() {
        StandardEnvironment environment = environment(Map.of("lockstep.tm.transaction-mode", "LOCAL"));
        environment.setActiveProfiles("prod");

        assertThatThrownBy(() -> LocalCommitNegativeControl.verify(bind(environment), environment))
                .isInstanceOf(StartupCheckFailure.class)
                .hasMessageStartingWith("lockstep.tm.transaction-mode: LOCAL commits the two databases as two local transactions")
                .hasMessageContaining("Fix: remove the setting (XA is the default), or set it to XA.");
    }

    @Test
    void localRunsOnlyUnderTheChaosProfile() {
        StandardEnvironment environment = environment(Map.of("lockstep.tm.transaction-mode", "local"));
        environment.setActiveProfiles("chaos");
        LockstepProperties properties = bind(environment);

        assertThat(properties.tm().transactionMode()).isEqualTo(TransactionMode.LOCAL);
        LocalCommitNegativeControl.verify(properties, environment);
    }

    private static StandardEnvironment environment(Map<String, Object> settings) {
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().addFirst(new MapPropertySource("test", settings));
        return environment;
    }

    private static LockstepProperties bind(StandardEnvironment environment) {
        return new Binder(ConfigurationPropertySources.get(environment)).bindOrCreate("lockstep", LockstepProperties.class);
    }
}
