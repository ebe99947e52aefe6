package dev.lockstep.transactions.contention;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.platform.StartupCheckFailure;
import dev.lockstep.platform.web.ApiException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The node's turns to run a transaction: how many at once, who waits, and that a wait for another gives its turn up. */
class RunningTransactionsTest {

    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    @Test
    void noMoreThanTheLimitRunAtOnceAndTheRestRunInTurn() throws Exception {
        RunningTransactions transactions = new RunningTransactions(2, Duration.ofSeconds(30));
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        CountDownLatch firstTwoInside = new CountDownLatch(2);
        CompletableFuture<?>[] runs = new CompletableFuture<?>[12];
        for (int i = 0; i < runs.length; i++) {
            runs[i] = CompletableFuture.runAsync(() -> transactions.inTurn(() -> {
                most.accumulateAndGet(inside.incrementAndGet(), Math::max);
                firstTwoInside.countDown();
                await(firstTwoInside); // the first two stay until both are in
                sleep(5);
                return inside.decrementAndGet();
            }), threads);
        }
        CompletableFuture.allOf(runs).get(30, TimeUnit.SECONDS);

        assertThat(most.get()).isEqualTo(2);
    }

    @Test
    void aTransactionWaitingForAnotherLetsTheNextOneRun() throws Exception {
        RunningTransactions transactions = new RunningTransactions(1, Duration.ofSeconds(30));
        CountDownLatch waiting = new CountDownLatch(1);
        CountDownLatch otherRan = new CountDownLatch(1);
        CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> transactions.inTurn(() -> {
            try (RunningTransactions.Wait forOthers = transactions.waitingForAnother()) {
                waiting.countDown();
                return await(otherRan);
            }
        }), threads);
        assertThat(waiting.await(10, TimeUnit.SECONDS)).isTrue();

        transactions.inTurn(() -> {
            otherRan.countDown();
            return null;
        });

        assertThat(waiter.get(10, TimeUnit.SECONDS)).as("the waiter saw the other transaction run and took its turn back").isTrue();
    }

    /** It may hold connections the running ones need: it must not wait for them to end. */
    @Test
    void theEndOfAWaitTakesATurnBackWithoutWaitingAndTheBoundHoldsAfterwards() throws Exception {
        RunningTransactions transactions = new RunningTransactions(1, Duration.ofMillis(200));
        CountDownLatch gaveUp = new CountDownLatch(1);
        CountDownLatch otherHolds = new CountDownLatch(1);
        CountDownLatch waitClosed = new CountDownLatch(1);
        CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> transactions.inTurn(() -> {
            try (RunningTransactions.Wait forOthers = transactions.waitingForAnother()) {
                gaveUp.countDown();
                await(otherHolds);
            }
            waitClosed.countDown();
            return true;
        }), threads);
        assertThat(gaveUp.await(10, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Boolean> other = CompletableFuture.supplyAsync(() -> transactions.inTurn(() -> {
            otherHolds.countDown();
            return await(waitClosed);
        }), threads);
        assertThat(other.get(10, TimeUnit.SECONDS)).as("the waiter went on while the other still held the only turn").isTrue();
        assertThat(waiter.get(10, TimeUnit.SECONDS)).isTrue();

        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Boolean> holder = holdATurnUntil(transactions, release);
        assertThatThrownBy(() -> transactions.inTurn(() -> "second")).as("still one at a time").isInstanceOf(ApiException.class);
        release.countDown();
        assertThat(holder.get(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aTransactionBegunInsideAnotherRunsInItsTurn() {
        RunningTransactions transactions = new RunningTransactions(1, Duration.ofMillis(200));

        assertThat(transactions.inTurn(() -> transactions.inTurn(() -> "inner"))).isEqualTo("inner");
    }

    @Test
    void noTurnWithinTheWaitIsNodeBusyAndTheTurnsStayCounted() throws Exception {
        RunningTransactions transactions = new RunningTransactions(1, Duration.ofMillis(200));
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Boolean> holder = holdATurnUntil(transactions, release);

        assertThatThrownBy(() -> transactions.inTurn(() -> "never"))
                .isInstanceOfSatisfying(ApiException.class, refused -> assertThat(refused.code()).isEqualTo("NODE_BUSY"));

        release.countDown();
        assertThat(holder.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(transactions.inTurn(() -> "after")).as("the refused wait took no turn with it").isEqualTo("after");
    }

    @Test
    void aLimitBelowOneStopsTheStartNamingTheSetting() {
        assertThatThrownBy(() -> new RunningTransactions(0, Duration.ofSeconds(1)))
                .isInstanceOf(StartupCheckFailure.class)
                .hasMessageContaining(RunningTransactions.SETTING);
    }

    /** A transaction on another thread that has its turn when this returns, and keeps it until {@code release}. */
    private CompletableFuture<Boolean> holdATurnUntil(RunningTransactions transactions, CountDownLatch release)
            throws InterruptedException {
        CountDownLatch holding = new CountDownLatch(1);
        CompletableFuture<Boolean> holder = CompletableFuture.supplyAsync(() -> transactions.inTurn(() -> {
            holding.countDown();
            return await(release);
        }), threads);
        assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
        return holder;
    }

    private static boolean await(CountDownLatch latch) {
        try {
            return latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
