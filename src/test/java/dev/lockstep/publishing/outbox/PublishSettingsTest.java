package dev.lockstep.publishing.outbox;

import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.platform.StartupCheckFailure;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Each unusable {@code lockstep.publish.*} value stops the startup naming the setting and the fix. */
class PublishSettingsTest {

    private static PublishProperties settings(URI url, Duration connect, Duration read, int attempts, int batch, Duration lease,
            Duration poll, Duration backoffInitial, Duration backoffMax) {
        return new PublishProperties(true, url, null, connect, read, attempts, batch, lease, poll, backoffInitial, backoffMax,
                Duration.ofMinutes(5));
    }

    private static PublishProperties defaults() {
        return settings(null, Duration.ofSeconds(2), Duration.ofSeconds(5), 10, 50, Duration.ofSeconds(60), Duration.ofSeconds(1),
                Duration.ofSeconds(1), Duration.ofMinutes(5));
    }

    @Test
    void theDefaultsPass() {
        assertThatNoException().isThrownBy(() -> defaults().verify());
    }

    @Test
    void eachBadValueNamesItsSetting() {
        refused(settings(URI.create("ftp://catalog/x"), Duration.ofSeconds(2), Duration.ofSeconds(5), 10, 50, Duration.ofSeconds(60),
                Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofMinutes(5)), "lockstep.publish.catalog-url");
        refused(settings(null, Duration.ZERO, Duration.ofSeconds(5), 10, 50, Duration.ofSeconds(60), Duration.ofSeconds(1),
                Duration.ofSeconds(1), Duration.ofMinutes(5)), "lockstep.publish.connect-timeout");
        refused(settings(null, Duration.ofSeconds(2), Duration.ofSeconds(5), 0, 50, Duration.ofSeconds(60), Duration.ofSeconds(1),
                Duration.ofSeconds(1), Duration.ofMinutes(5)), "lockstep.publish.max-attempts");
        refused(settings(null, Duration.ofSeconds(2), Duration.ofSeconds(5), 10, 0, Duration.ofSeconds(60), Duration.ofSeconds(1),
                Duration.ofSeconds(1), Duration.ofMinutes(5)), "lockstep.publish.batch-size");
        refused(settings(null, Duration.ofSeconds(2), Duration.ofSeconds(5), 10, 50, Duration.ofSeconds(10), Duration.ofSeconds(1),
                Duration.ofSeconds(1), Duration.ofMinutes(5)), "lockstep.publish.lease");
        refused(settings(null, Duration.ofSeconds(2), Duration.ofSeconds(5), 10, 50, Duration.ofSeconds(60), Duration.ofSeconds(1),
                Duration.ofSeconds(10), Duration.ofSeconds(1)), "lockstep.publish.backoff-max");
        refused(settings(null, Duration.ofSeconds(2), Duration.ofSeconds(5), 10, 50, Duration.ofSeconds(60), Duration.ofSeconds(-1),
                Duration.ofSeconds(1), Duration.ofMinutes(5)), "lockstep.publish.poll-interval");
    }

    private static void refused(PublishProperties settings, String setting) {
        assertThatThrownBy(settings::verify).isInstanceOf(StartupCheckFailure.class)
                .satisfies(e -> org.assertj.core.api.Assertions.assertThat(((StartupCheckFailure) e).setting()).isEqualTo(setting))
                .hasMessageContaining("Fix:");
    }
}
