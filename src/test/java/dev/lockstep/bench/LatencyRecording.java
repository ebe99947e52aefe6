package dev.lockstep.bench;

import dev.lockstep.bench.ApprovalCycleClient.Operation;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/** Latencies (HdrHistogram, microseconds, 3 significant digits) and error counts of one measurement window. */
final class LatencyRecording {

    private static final long HIGHEST_MICROS = TimeUnit.MINUTES.toMicros(2);

    private final Map<Operation, Histogram> latencies = new EnumMap<>(Operation.class);
    private final Map<Operation, AtomicLong> errors = new EnumMap<>(Operation.class);
    private volatile boolean open = true;

    LatencyRecording() {
        for (Operation operation : Operation.values()) {
            latencies.put(operation, new ConcurrentHistogram(HIGHEST_MICROS, 3));
            errors.put(operation, new AtomicLong());
        }
    }

    /** Ends the window: requests still in flight are not counted. */
    void close() {
        open = false;
    }

    void record(Operation operation, long nanos) {
        if (!open) {
            return;
        }
        latencies.get(operation).recordValue(Math.min(HIGHEST_MICROS, Math.max(1, nanos / 1000)));
    }

    void error(Operation operation) {
        if (!open) {
            return;
        }
        errors.get(operation).incrementAndGet();
    }

    /** Adds another window's latencies and errors to this one's. */
    void add(LatencyRecording other) {
        for (Operation operation : Operation.values()) {
            latencies.get(operation).add(other.histogram(operation));
            errors.get(operation).addAndGet(other.errors(operation));
        }
    }

    long count(Operation operation) {
        return latencies.get(operation).getTotalCount();
    }

    long errors(Operation operation) {
        return errors.get(operation).get();
    }

    Histogram histogram(Operation operation) {
        return latencies.get(operation);
    }
}
