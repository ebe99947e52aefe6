package dev.lockstep.platform.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.platform.StartupCheckFailure;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The probe cache on its own, its clock moved by hand: reuse within the age, one probe at a time, the timeout. */
class ProbedHealthIndicatorTest {

    private static final Duration MAX_AGE = Duration.ofSeconds(5);
    /** Long enough that no caller gives up while the test releases the probe. */
    private static final Duration PATIENT = Duration.ofMinutes(5);
    /** What a caller of a hanging probe really waits. */
    private static final Duration SHORT = Duration.ofMillis(200);

    private final MovableClock clock = new MovableClock();
    private final AtomicInteger probes = new AtomicInteger();

    @Test
    void concurrentRequestsShareOneProbeAndRequestsWithinTheAgeReuseIt() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        HealthIndicator health = probed(PATIENT, () -> {
            probes.incrementAndGet();
            await(release);
            return Health.up().withDetail("answer", 42).build();
        });
        ExecutorService callers = Executors.newFixedThreadPool(50);
        try {
            List<Future<Health>> answers = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                answers.add(callers.submit(() -> health.health()));
            }
            release.countDown();
            for (Future<Health> answer : answers) {
                assertThat(answer.get().getStatus()).isEqualTo(Status.UP);
            }
        } finally {
            callers.shutdownNow();
        }
        clock.move(MAX_AGE.minusMillis(1));
        Health reused = health.health();

        assertThat(probes).as("one probe for 51 requests within the age").hasValue(1);
        assertThat(reused.getStatus()).isEqualTo(Status.UP);
        assertThat(reused.getDetails()).containsEntry("answer", 42)
                .containsEntry("probedAt", MovableClock.START.toString())
                .containsEntry("probeAgeMillis", MAX_AGE.minusMillis(1).toMillis());
    }

    @Test
    void aProbeAsOldAsTheMaxAgeIsRunAgain() {
        HealthIndicator health = probed(PATIENT, () -> Health.up().withDetail("probe", probes.incrementAndGet()).build());
        health.health();
        clock.move(MAX_AGE);

        Health again = health.health();

        assertThat(again.getDetails()).containsEntry("probe", 2).containsEntry("probeAgeMillis", 0L)
                .containsEntry("probedAt", MovableClock.START.plus(MAX_AGE).toString());
    }

    @Test
    void aHangingProbeIsDownAfterTheTimeoutAndNoSecondProbeStartsWhileItHangs() {
        CountDownLatch release = new CountDownLatch(1);
        HealthIndicator health = probed(SHORT, () -> {
            probes.incrementAndGet();
            await(release);
            return Health.up().build();
        });

        Health waited = health.health();
        clock.move(MAX_AGE.multipliedBy(3));
        Health later = health.health(); // past the probe's deadline: answered without waiting

        assertThat(waited.getStatus()).isEqualTo(Status.DOWN);
        assertThat(waited.getDetails().get("error").toString()).contains("lockstep.health.probe-timeout");
        assertThat(later.getStatus()).isEqualTo(Status.DOWN);
        assertThat(later.getDetails()).containsEntry("probedAt", MovableClock.START.toString());
        assertThat(probes).as("no probe piles up behind the hanging one").hasValue(1);

        release.countDown();
        // a request racing the release may still be answered by the hanging probe's own late UP: wait for a new probe's
        Health next = health.health();
        while (next.getStatus() != Status.UP || MovableClock.START.toString().equals(next.getDetails().get("probedAt"))) {
            next = health.health();
        }
        assertThat(probes).as("once it ended, the next request probes again").hasValue(2);
    }

    @Test
    void aCheckThatThrowsIsDownWithItsError() {
        Health health = probed(PATIENT, () -> {
            throw new IllegalStateException("connection refused");
        }).health();

        assertThat(health.getStatus()).isEqualTo(Status.DOWN);
        assertThat(health.getDetails().get("error").toString()).contains("connection refused");
    }

    @Test
    void settingsThatCannotWorkStopTheStartNamingTheSetting() {
        ApplicationContextRunner context = new ApplicationContextRunner().withUserConfiguration(HealthConfiguration.class);
        context.withPropertyValues("lockstep.health.probe-max-age=0s").run(started -> {
            assertThat(started).hasFailed();
            assertThat(started.getStartupFailure()).rootCause().isInstanceOf(StartupCheckFailure.class)
                    .hasMessageStartingWith("lockstep.health.probe-max-age: is PT0S");
        });
        context.withPropertyValues("lockstep.health.probe-timeout=-1s").run(started -> {
            assertThat(started).hasFailed();
            assertThat(started.getStartupFailure()).rootCause().isInstanceOf(StartupCheckFailure.class)
                    .hasMessageStartingWith("lockstep.health.probe-timeout: is PT-1S");
        });
        context.run(started -> assertThat(started).hasNotFailed().hasSingleBean(HealthProbes.class));
    }

    private HealthIndicator probed(Duration timeout, HealthIndicator check) {
        return new ProbedHealthIndicator("test", check, MAX_AGE, timeout, clock);
    }

    /** Asks until the answer has {@code status}: the first requests after the release may still see the probe finishing. */
    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static final class MovableClock extends Clock {

        static final Instant START = Instant.parse("2026-12-03T10:00:00Z");
        private volatile Instant now = START;

        void move(Duration by) {
            now = now.plus(by);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }
    }
}
