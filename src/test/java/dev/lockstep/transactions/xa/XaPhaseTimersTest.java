package dev.lockstep.transactions.xa;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.transaction.xa.Xid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The decision timer when the branches of one transaction report from several threads at once, as they do
 * with parallel commit: the last prepare's end wins whatever order the ends arrive in, and of the commits
 * that start together exactly one records the interval.
 */
class XaPhaseTimersTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @BeforeEach
    void register() {
        Metrics.addRegistry(registry);
    }

    @AfterEach
    void unregister() {
        Metrics.removeRegistry(registry);
    }

    @Test
    void concurrentBranchesRecordOneDecisionFromTheLastPrepareToTheFirstCommitThatArrives() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            for (int round = 0; round < 200; round++) {
                long before = decisionCount();
                double totalBefore = decisionNanos();
                byte[] gtrid = ("xa-phase-timers-test.tm" + round).getBytes(StandardCharsets.US_ASCII);
                long lastPrepareEnd = 1_000_000L * (round + 1) + 8;
                CountDownLatch go = new CountDownLatch(1);
                List<Future<?>> prepares = new ArrayList<>();
                for (int branch = 0; branch < 8; branch++) {
                    long end = lastPrepareEnd - branch; // the branches end in every order
                    Xid xid = xid(gtrid, branch);
                    prepares.add(threads.submit(() -> {
                        go.await();
                        XaPhaseTimers.prepared(xid, end);
                        return null;
                    }));
                }
                go.countDown();
                for (Future<?> prepare : prepares) {
                    prepare.get(10, TimeUnit.SECONDS);
                }
                CountDownLatch commit = new CountDownLatch(1);
                List<Future<?>> commits = new ArrayList<>();
                for (int branch = 0; branch < 8; branch++) {
                    Xid xid = xid(gtrid, branch);
                    commits.add(threads.submit(() -> {
                        commit.await();
                        XaPhaseTimers.secondPhaseStarts(xid, true, lastPrepareEnd + 500);
                        return null;
                    }));
                }
                commit.countDown();
                for (Future<?> c : commits) {
                    c.get(10, TimeUnit.SECONDS);
                }
                assertThat(decisionCount()).as("one decision per transaction, round " + round).isEqualTo(before + 1);
                assertThat(decisionNanos() - totalBefore)
                        .as("from the latest prepare end, round " + round).isEqualTo(500.0);
            }
        } finally {
            threads.shutdownNow();
        }
    }

    private long decisionCount() {
        Timer timer = registry.find(XaPhaseTimers.DECISION).timer();
        return timer == null ? 0 : timer.count();
    }

    private double decisionNanos() {
        Timer timer = registry.find(XaPhaseTimers.DECISION).timer();
        return timer == null ? 0 : timer.totalTime(TimeUnit.NANOSECONDS);
    }

    private static Xid xid(byte[] gtrid, int branch) {
        return new Xid() {
            @Override
            public int getFormatId() {
                return 1096044365;
            }

            @Override
            public byte[] getGlobalTransactionId() {
                return gtrid.clone();
            }

            @Override
            public byte[] getBranchQualifier() {
                return ("branch" + branch).getBytes(StandardCharsets.US_ASCII);
            }
        };
    }
}
