package dev.lockstep.publishing.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.platform.StartupCheckFailure;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Each unusable {@code lockstep.outbox.retention.*} value stops the startup naming the setting. */
class OutboxRetentionSettingsTest {

    @Test
    void theDefaultsPass() {
        assertThatNoException().isThrownBy(() -> new OutboxRetentionProperties(true, Duration.ofHours(1), 500, Duration.ofDays(90))
                .verify());
    }

    @Test
    void eachBadValueNamesItsSetting() {
        refused(new OutboxRetentionProperties(true, Duration.ofHours(1), 0, Duration.ofDays(90)), "lockstep.outbox.retention.batch-size");
        refused(new OutboxRetentionProperties(true, Duration.ofHours(1), 10_001, Duration.ofDays(90)),
                "lockstep.outbox.retention.batch-size");
        refused(new OutboxRetentionProperties(true, Duration.ofSeconds(5), 500, Duration.ofDays(90)),
                "lockstep.outbox.retention.interval");
        refused(new OutboxRetentionProperties(true, Duration.ofHours(1), 500, Duration.ofSeconds(30)),
                "lockstep.outbox.retention.published");
    }

    private static void refused(OutboxRetentionProperties settings, String setting) {
        assertThatThrownBy(settings::verify).isInstanceOf(StartupCheckFailure.class)
                .satisfies(e -> assertThat(((StartupCheckFailure) e).setting()).isEqualTo(setting))
                .hasMessageContaining("Fix:");
    }
}
