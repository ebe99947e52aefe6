package dev.lockstep.bench;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * N clients running approval cycles back to back against one service: first a warm-up whose figures
 * are dropped (at least its duration, and until every client has finished a cold first cycle), then
 * the measured window. A cycle counts when it started and ended inside the window.
 */
final class LoadRun {

    private LoadRun() {
    }

    record Result(int clients, double seconds, long cycles, LatencyRecording latencies) {

        double cyclesPerSecond() {
            return cycles / seconds;
        }
    }

    /** Called at the edges of the measured window, to read server-side counters over exactly that window. */
    interface WindowEdge {
        void reached() throws Exception;
    }

    static Result run(String baseUrl, int clients, Duration warmup, Duration measure, WindowEdge atStart, WindowEdge atEnd)
            throws Exception {
        return run(baseUrl, ApprovalCycleClient.CREATE_BODY, clients, warmup, measure, atStart, atEnd);
    }

    /** As above, each cycle creating its application with {@code createBody}. */
    static Result run(String baseUrl, String createBody, int clients, Duration warmup, Duration measure, WindowEdge atStart,
            WindowEdge atEnd) throws Exception {
        AtomicReference<LatencyRecording> current = new AtomicReference<>(new LatencyRecording());
        AtomicBoolean running = new AtomicBoolean(true);
        CountDownLatch firstCycles = new CountDownLatch(clients);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            // one connection per client, as separate users would have
            ApprovalCycleClient client = new ApprovalCycleClient(
                    HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build(), baseUrl, createBody);
            Thread thread = new Thread(() -> {
                while (running.get()) {
                    client.runCycle(current.get());
                    firstCycles.countDown();
                }
            }, "bench-client-" + i);
            thread.start();
            threads.add(thread);
        }
        Thread.sleep(warmup.toMillis());
        firstCycles.await();
        atStart.reached();
        LatencyRecording measured = new LatencyRecording();
        current.set(measured);
        long start = System.nanoTime();
        Thread.sleep(measure.toMillis());
        measured.close();
        current.set(new LatencyRecording());
        double seconds = (System.nanoTime() - start) / 1e9;
        atEnd.reached();
        running.set(false);
        for (Thread thread : threads) {
            thread.join();
        }
        return new Result(clients, seconds, measured.count(ApprovalCycleClient.Operation.CYCLE), measured);
    }
}
