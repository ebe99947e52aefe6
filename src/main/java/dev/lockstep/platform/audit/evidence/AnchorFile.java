package dev.lockstep.platform.audit.evidence;

import dev.lockstep.platform.StartupCheckFailure;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Every checkpoint, one JSON line each, appended to a file outside the business database
 * ({@code lockstep.audit.anchor-file}): whoever can rewrite that database's chain and checkpoint rows cannot reach
 * this file, so deleting the tail or recomputing the chain leaves a checkpoint here that no longer matches. It is as
 * safe as the storage it is on (docs/operations.md: a WORM or object-lock mount).
 */
final class AnchorFile {

    static final String SETTING = "lockstep.audit.anchor-file";

    private final Path file;

    AnchorFile(Path file) {
        this.file = file;
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            if (!Files.exists(file)) {
                Files.createFile(file);
            }
        } catch (IOException e) {
            throw new StartupCheckFailure(SETTING, file.toAbsolutePath() + " cannot be created (" + e + ").",
                    "point " + SETTING + " at a writable file on storage the database's administrators cannot rewrite.");
        }
        if (!Files.isWritable(file)) {
            throw new StartupCheckFailure(SETTING, file.toAbsolutePath() + " is not writable.",
                    "give the service append rights on it, or point " + SETTING + " elsewhere.");
        }
    }

    /** Appends one line and forces it to disk before the checkpoint is stored in the database. */
    synchronized void append(Checkpoint checkpoint) {
        byte[] line = (BundleFormat.JSON.writeValueAsString(BundleFormat.checkpoint(checkpoint)) + "\n").getBytes(StandardCharsets.UTF_8);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            channel.write(ByteBuffer.wrap(line));
            channel.force(true);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot append to " + SETTING + " " + file.toAbsolutePath(), e);
        }
    }

    /**
     * Every checkpoint in the file, oldest first (a few tens of thousands a year at the default interval); a line that
     * is not one is skipped (a write torn by a crash).
     */
    List<Checkpoint> checkpoints() {
        List<Checkpoint> checkpoints = new ArrayList<>();
        try (BufferedReader lines = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                try {
                    checkpoints.add(BundleFormat.checkpoint(BundleFormat.JSON.readTree(line)));
                } catch (RuntimeException tornWrite) {
                    // the lines before and after it still count
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + SETTING + " " + file.toAbsolutePath(), e);
        }
        return checkpoints;
    }

    Path file() {
        return file;
    }
}
