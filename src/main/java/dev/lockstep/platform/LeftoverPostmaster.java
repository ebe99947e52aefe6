package dev.lockstep.platform;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a killed service leaves in an embedded data directory. After {@code kill -9} of the JVM its
 * PostgreSQL servers keep running (they are separate processes) and hold the directory; after a
 * machine crash the {@code postmaster.pid} file names a process id that may now belong to anything.
 * Either way the next start would fail, so before starting a server Lockstep stops an orphaned
 * postmaster of that directory (fast mode: prepared transactions stay on disk for recovery) or
 * removes a pid file whose process is not that postmaster.
 */
final class LeftoverPostmaster {

    private static final Logger log = LoggerFactory.getLogger(LeftoverPostmaster.class);
    static final String PID_FILE = "postmaster.pid";
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(60);

    private LeftoverPostmaster() {
    }

    static void clear(Path dataDirectory) throws IOException {
        Path pidFile = dataDirectory.resolve(PID_FILE);
        if (!Files.exists(pidFile)) {
            return;
        }
        Optional<ProcessHandle> postmaster = pidIn(pidFile).flatMap(ProcessHandle::of)
                .filter(process -> isPostmasterOf(process, dataDirectory));
        if (postmaster.isPresent()) {
            stop(postmaster.get(), pidFile);
        } else {
            log.warn("Removing stale {} (its process is no PostgreSQL server of this directory any more)", pidFile);
            Files.deleteIfExists(pidFile);
        }
    }

    private static Optional<Long> pidIn(Path pidFile) throws IOException {
        List<String> lines = Files.readAllLines(pidFile, StandardCharsets.UTF_8);
        try {
            return lines.isEmpty() ? Optional.empty() : Optional.of(Long.parseLong(lines.get(0).trim()));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** The postmaster is the process running the postgres binary with {@code -D <this directory>}. */
    private static boolean isPostmasterOf(ProcessHandle process, Path dataDirectory) {
        ProcessHandle.Info info = process.info();
        boolean postgresBinary = info.command().map(command -> Path.of(command).getFileName().toString().equals("postgres"))
                .orElse(false);
        List<String> arguments = info.arguments().map(List::of).orElse(List.of());
        int dataFlag = arguments.indexOf("-D");
        return postgresBinary && dataFlag >= 0 && dataFlag + 1 < arguments.size()
                && Path.of(arguments.get(dataFlag + 1)).toAbsolutePath().normalize().equals(dataDirectory);
    }

    /**
     * SIGINT is PostgreSQL's fast shutdown, the signal {@code pg_ctl stop -m fast} sends; pg_ctl itself
     * refuses to run as root, which the embedded servers may well be started as. Like {@code pg_ctl -w},
     * wait until the server has removed its pid file.
     */
    private static void stop(ProcessHandle postmaster, Path pidFile) throws IOException {
        log.warn("A PostgreSQL server left behind by an earlier run (pid {}) still holds {}; stopping it (fast shutdown)",
                postmaster.pid(), pidFile.getParent());
        try {
            Process kill = new ProcessBuilder("kill", "-INT", Long.toString(postmaster.pid())).inheritIO().start();
            if (kill.waitFor() != 0) {
                throw new IOException("could not signal the leftover server (pid " + postmaster.pid() + ")");
            }
            long deadline = System.nanoTime() + STOP_TIMEOUT.toNanos();
            while (Files.exists(pidFile)) {
                if (System.nanoTime() > deadline) {
                    throw new IOException("the leftover server (pid " + postmaster.pid() + ") did not stop within "
                            + STOP_TIMEOUT.toSeconds() + "s");
                }
                Thread.sleep(100);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while stopping the leftover server", e);
        }
    }
}
