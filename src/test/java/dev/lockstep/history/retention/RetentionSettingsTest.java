package dev.lockstep.history.retention;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.lockstep.platform.StartupCheckFailure;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** A retention setting that cannot work stops the startup naming the setting (no database needed: nothing connects). */
class RetentionSettingsTest {

    private final ApplicationContextRunner context = new ApplicationContextRunner()
            .withUserConfiguration(RetentionConfiguration.class)
            .withBean("schedulerDataSource", HikariDataSource.class, HikariDataSource::new)
            .withBean(MeterRegistry.class, SimpleMeterRegistry::new);

    @Test
    void aBatchSizeOfZeroIsRefused() {
        context.withPropertyValues("lockstep.retention.batch-size=0").run(started -> {
            assertThat(started).hasFailed();
            assertThat(started.getStartupFailure()).rootCause().isInstanceOf(StartupCheckFailure.class)
                    .hasMessageStartingWith("lockstep.retention.batch-size: 0 rows per delete is out of range.");
        });
    }

    @Test
    void aRetentionOfSecondsIsRefused() {
        context.withPropertyValues("lockstep.retention.workflow-command=30s").run(started -> {
            assertThat(started).hasFailed();
            assertThat(started.getStartupFailure()).rootCause().isInstanceOf(StartupCheckFailure.class)
                    .hasMessageStartingWith("lockstep.retention.workflow-command: PT30S is below one minute.");
        });
    }

    @Test
    void theDefaultsStartAndRegisterThePurgeJob() {
        context.run(started -> {
            assertThat(started).hasNotFailed();
            assertThat(started).hasBean("retentionPurgeJob");
        });
    }

    @Test
    void disabledRegistersNoJob() {
        context.withPropertyValues("lockstep.retention.enabled=false").run(started -> {
            assertThat(started).hasNotFailed();
            assertThat(started).doesNotHaveBean("retentionPurgeJob");
        });
    }
}
