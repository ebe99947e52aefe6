package dev.lockstep.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import org.HdrHistogram.Histogram;

/**
 * The disk's floor for one durable write: an 8 KiB overwrite followed by fdatasync, on the same file
 * system as the benchmark databases, the way a WAL flush or the Atomikos log write hits the disk.
 */
final class FsyncProbe {

    private FsyncProbe() {
    }

    record Result(long samples, double p50Micros, double p99Micros, double maxMicros) {
    }

    static Result measure(Path directory, Duration duration) throws IOException {
        Files.createDirectories(directory);
        Path file = directory.resolve("fsync-probe.bin");
        Histogram micros = new Histogram(3);
        ByteBuffer page = ByteBuffer.allocate(8192);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            long end = System.nanoTime() + duration.toNanos();
            while (System.nanoTime() < end) {
                page.rewind();
                long start = System.nanoTime();
                channel.write(page, 0);
                channel.force(false);
                micros.recordValue(Math.max(1, (System.nanoTime() - start) / 1000));
            }
        } finally {
            Files.deleteIfExists(file);
        }
        return new Result(micros.getTotalCount(), micros.getValueAtPercentile(50), micros.getValueAtPercentile(99),
                micros.getMaxValue());
    }
}
