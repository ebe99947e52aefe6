package dev.lockstep.history.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.platform.StartupCheckFailure;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import org.junit.jupiter.api.Test;

/** Archival settings that cannot work stop the startup naming the setting; the quiet window's hours. */
class ArchivalSettingsTest {

    private static final ZoneId UTC = ZoneId.of("UTC");
    /** lockstep.tm.default-timeout's default. */
    private static final Duration TRANSACTION_TIMEOUT = Duration.ofSeconds(30);

    @Test
    void theDefaultsPass() {
        assertThatCode(() -> ArchivalConfiguration.check(settings(50, Duration.ofDays(180), Duration.ofSeconds(1), 1, 5), "audit",
                TRANSACTION_TIMEOUT))
                .doesNotThrowAnyException();
    }

    @Test
    void eachSettingOutOfRangeIsNamed() {
        assertRefused(settings(0, Duration.ofDays(180), Duration.ofSeconds(1), 1, 5), "audit",
                "lockstep.archival.batch-size: 0 processes per batch is out of range.");
        assertRefused(settings(1001, Duration.ofDays(180), Duration.ofSeconds(1), 1, 5), "audit",
                "lockstep.archival.batch-size: 1001 processes per batch is out of range.");
        assertRefused(settings(50, Duration.ofHours(2), Duration.ofSeconds(1), 1, 5), "audit",
                "lockstep.archival.min-age: PT2H is below one day.");
        assertRefused(settings(50, Duration.ofDays(180), Duration.ofMinutes(5), 1, 5), "audit",
                "lockstep.archival.pause-between-batches: PT5M is not between 0 and one minute.");
        assertRefused(settings(50, Duration.ofDays(180), Duration.ofSeconds(1), 24, 5), "audit",
                "lockstep.archival.window-start-hour: 24 is not an hour of the day.");
        assertRefused(settings(50, Duration.ofDays(180), Duration.ofSeconds(1), 1, -1), "audit",
                "lockstep.archival.window-end-hour: -1 is not an hour of the day.");
    }

    @Test
    void theBatchTimeLimitStaysWithinHalfTheTransactionTimeout() {
        assertThatCode(() -> ArchivalConfiguration.check(withBatchTimeLimit(Duration.ofSeconds(15)), "audit", TRANSACTION_TIMEOUT))
                .doesNotThrowAnyException();
        assertRefused(withBatchTimeLimit(Duration.ofSeconds(16)), "audit",
                "lockstep.archival.batch-time-limit: PT16S is not between 0 and half the transaction timeout"
                        + " (lockstep.tm.default-timeout PT30S).");
        assertRefused(withBatchTimeLimit(Duration.ofSeconds(-1)), "audit", "lockstep.archival.batch-time-limit: PT-1S");
        assertThatCode(() -> ArchivalConfiguration.check(withBatchTimeLimit(Duration.ofSeconds(40)), "audit", Duration.ofMinutes(2)))
                .as("a longer transaction timeout allows a longer batch").doesNotThrowAnyException();
    }

    @Test
    void unsetTheBatchTimeLimitIsAThirdOfTheTransactionTimeoutAndASetOneIsKept() {
        assertThat(withBatchTimeLimit(null).withBatchTimeLimitWithin(TRANSACTION_TIMEOUT).batchTimeLimit()).isEqualTo(Duration.ofSeconds(10));
        ArchivalProperties shortTimeout = withBatchTimeLimit(null).withBatchTimeLimitWithin(Duration.ofSeconds(8));
        assertThat(shortTimeout.batchTimeLimit()).isEqualTo(Duration.ofNanos(2_666_666_666L));
        assertThatCode(() -> ArchivalConfiguration.check(shortTimeout, "audit", Duration.ofSeconds(8)))
                .as("a shorter transaction timeout with the limit unset still starts").doesNotThrowAnyException();
        assertThat(withBatchTimeLimit(Duration.ofSeconds(4)).withBatchTimeLimitWithin(TRANSACTION_TIMEOUT).batchTimeLimit())
                .isEqualTo(Duration.ofSeconds(4));
    }

    @Test
    void aFullHistoryLevelIsRefusedWhileArchivalIsOn() {
        assertRefused(settings(50, Duration.ofDays(180), Duration.ofSeconds(1), 1, 5), "full",
                "lockstep.archival.enabled: the engine's history level is full");
    }

    @Test
    void theQuietWindowMayWrapMidnightAndEqualHoursMeanAllDay() {
        QuietWindow night = new QuietWindow(1, 5, UTC);
        assertThat(night.contains(Instant.parse("2026-01-01T01:00:00Z"))).isTrue();
        assertThat(night.contains(Instant.parse("2026-01-01T04:59:59Z"))).isTrue();
        assertThat(night.contains(Instant.parse("2026-01-01T05:00:00Z"))).isFalse();
        assertThat(night.contains(Instant.parse("2026-01-01T00:59:59Z"))).isFalse();
        QuietWindow wrapping = new QuietWindow(22, 2, UTC);
        assertThat(wrapping.contains(Instant.parse("2026-01-01T23:30:00Z"))).isTrue();
        assertThat(wrapping.contains(Instant.parse("2026-01-01T01:30:00Z"))).isTrue();
        assertThat(wrapping.contains(Instant.parse("2026-01-01T12:00:00Z"))).isFalse();
        assertThat(new QuietWindow(3, 3, UTC).contains(Instant.parse("2026-01-01T12:00:00Z"))).isTrue();
        assertThat(new QuietWindow(1, 5, ZoneId.of("Asia/Shanghai")).contains(Instant.parse("2026-01-01T18:00:00Z")))
                .as("02:00 in Shanghai").isTrue();
    }

    private static ArchivalProperties settings(int batchSize, Duration minAge, Duration pause, int startHour, int endHour) {
        return new ArchivalProperties(true, minAge, batchSize, Duration.ofSeconds(10), pause, Duration.ofMinutes(10), startHour,
                endHour, UTC);
    }

    private static ArchivalProperties withBatchTimeLimit(Duration limit) {
        return new ArchivalProperties(true, Duration.ofDays(180), 50, limit, Duration.ofSeconds(1), Duration.ofMinutes(10), 1, 5, UTC);
    }

    private static void assertRefused(ArchivalProperties settings, String historyLevel, String message) {
        assertThatThrownBy(() -> ArchivalConfiguration.check(settings, historyLevel, TRANSACTION_TIMEOUT))
                .isInstanceOf(StartupCheckFailure.class)
                .hasMessageStartingWith(message);
    }
}
