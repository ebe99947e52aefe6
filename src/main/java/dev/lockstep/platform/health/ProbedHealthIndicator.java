package dev.lockstep.platform.health;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * A health component answered from the last run of its check (its probe). A request starts a probe only when the
 * last one has ended and began at least {@code maxAge} ago; requests meanwhile share the running or last probe, so a
 * thousand concurrent requests cost one run. Each waits for the probe until {@code timeout} after it began: a check
 * that hangs (a database that accepts and never answers) is reported DOWN and holds no request thread longer, and no
 * second probe piles up behind it. Details say when the probe began ({@code probedAt}) and how old it is.
 */
final class ProbedHealthIndicator implements HealthIndicator {

    private final HealthIndicator check;
    private final Duration maxAge;
    private final Duration timeout;
    private final Clock clock;
    private final Executor runner;
    private Probe last; // guarded by this

    private record Probe(Instant startedAt, CompletableFuture<Health> answer) {
    }

    ProbedHealthIndicator(String component, HealthIndicator check, Duration maxAge, Duration timeout, Clock clock) {
        this.check = check;
        this.maxAge = maxAge;
        this.timeout = timeout;
        this.clock = clock;
        this.runner = task -> {
            Thread thread = new Thread(task, "health-probe-" + component);
            thread.setDaemon(true);
            thread.start();
        };
    }

    @Override
    public Health health() {
        Probe probe = current();
        Duration left = timeout.minus(Duration.between(probe.startedAt(), clock.instant()));
        try {
            Health answer = !left.isNegative() && !left.isZero() ? probe.answer().get(left.toNanos(), TimeUnit.NANOSECONDS)
                    : probe.answer().getNow(null);
            if (answer != null) {
                return aged(Health.status(answer.getStatus()).withDetails(answer.getDetails()), probe);
            }
        } catch (TimeoutException e) {
            // answered below, as when the deadline had passed before this request came
        } catch (ExecutionException e) {
            return aged(Health.down(e.getCause()), probe);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return aged(Health.unknown(), probe);
        }
        return aged(Health.down().withDetail("error", "the probe has not answered within " + timeout
                + " (lockstep.health.probe-timeout)"), probe);
    }

    private synchronized Probe current() {
        Instant now = clock.instant();
        if (last == null || last.answer().isDone() && !last.startedAt().plus(maxAge).isAfter(now)) {
            last = new Probe(now, CompletableFuture.supplyAsync(check::health, runner));
        }
        return last;
    }

    private Health aged(Health.Builder health, Probe probe) {
        return health.withDetail("probedAt", probe.startedAt().toString())
                .withDetail("probeAgeMillis", Duration.between(probe.startedAt(), clock.instant()).toMillis())
                .build();
    }
}
