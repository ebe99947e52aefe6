package dev.lockstep.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * How fast this machine's CPU is right now: the CPU time (not the wall time) of a fixed piece of work, SHA-256
 * over 16 MiB, on the calling thread. A shared virtual machine's cores can run at a fraction of their speed for
 * minutes (a busy neighbour on the sibling hyperthread shows as no steal time): every figure of a window measured
 * then is inflated, and a ratio against a window measured at full speed means nothing. Taken at each window's
 * edges, it tells which windows ran on a slowed machine. Costs about 50 ms of CPU.
 */
final class CpuSpeedProbe {

    private static final byte[] BLOCK = new byte[64 * 1024];
    private static final int BLOCKS = 256;

    private CpuSpeedProbe() {
    }

    /** Milliseconds of this thread's CPU for the fixed work: higher is slower. */
    static double millis() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        try {
            MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
            long start = threads.getCurrentThreadCpuTime();
            for (int i = 0; i < BLOCKS; i++) {
                sha256.update(BLOCK);
            }
            sha256.digest();
            return (threads.getCurrentThreadCpuTime() - start) / 1e6;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
