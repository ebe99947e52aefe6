package dev.lockstep.transactions.xa.log;

import com.atomikos.persistence.imp.LogFileLock;
import com.atomikos.recovery.LogException;
import com.atomikos.recovery.LogReadException;
import com.atomikos.recovery.LogWriteException;
import com.atomikos.recovery.PendingTransactionRecord;
import com.atomikos.recovery.TxState;
import com.atomikos.recovery.fs.FileSystemRepository;
import com.atomikos.util.VersionedFile;
import java.io.FileInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.List;

/**
 * The coordinator log's file, in Atomikos's own format, versioning ({@link VersionedFile}) and lock
 * ({@link LogFileLock}), so Atomikos's reader, the chaos suite and an operator read it as before. Unlike
 * Atomikos's {@link FileSystemRepository}, which forces the file inside every {@code put}, appending and
 * forcing are separate: {@link #put} only appends, and {@link #forceAppended()} makes everything appended
 * so far durable with one force, however many threads appended since the last one (group commit).
 *
 * <p>Locks, always taken in this order: {@code forceLock}, then this object's monitor. A force runs under
 * {@code forceLock} alone, so other threads keep appending while it runs; a checkpoint swaps the file
 * under both, so it never closes a channel a force is using.
 */
final class AppendOnlyLogFile implements GroupCommitRepository {

    private final String directory;
    private final String baseName;
    private final Object forceLock = new Object();
    private LogFileLock lock;
    private VersionedFile file;
    private FileChannel channel;         // guarded by this
    private long recordsAppended;        // guarded by this; over all versions of the file
    private long recordsDurable;         // guarded by forceLock
    private long forces;                 // guarded by forceLock

    AppendOnlyLogFile(String directory, String baseName) {
        this.directory = directory;
        this.baseName = baseName;
    }

    @Override
    public void init() throws LogException {
        lock = new LogFileLock(directory, baseName);
        lock.acquireLock();
        file = new VersionedFile(directory, baseName, ".log");
    }

    @Override
    public synchronized void put(String id, PendingTransactionRecord record) throws LogWriteException {
        try {
            if (channel == null) {
                channel = file.openNewVersionForNioWriting();
            }
            append(record);
        } catch (IOException e) {
            throw new LogWriteException(e);
        }
    }

    /**
     * Returns once every record appended before the call is on disk. A thread whose record an earlier
     * force already covered returns without forcing; otherwise one force covers its record and every
     * record appended by then.
     */
    @Override
    public void forceAppended() throws LogWriteException {
        long needed;
        synchronized (this) {
            needed = recordsAppended;
        }
        synchronized (forceLock) {
            if (recordsDurable >= needed) {
                return;
            }
            FileChannel current;
            long covered;
            synchronized (this) {
                current = channel;
                covered = recordsAppended;
            }
            try {
                current.force(false);
            } catch (IOException e) {
                throw new LogWriteException(e);
            }
            recordsDurable = covered;
            forces++;
        }
    }

    @Override
    public long forces() {
        synchronized (forceLock) {
            return forces;
        }
    }

    @Override
    public void writeCheckpoint(Collection<PendingTransactionRecord> liveRecords) throws LogWriteException {
        synchronized (forceLock) {
            synchronized (this) {
                try {
                    file.close();
                    channel = file.openNewVersionForNioWriting();
                    for (PendingTransactionRecord record : liveRecords) {
                        append(record);
                    }
                    channel.force(false);
                    file.discardBackupVersion();
                } catch (IOException e) {
                    throw new LogWriteException(e);
                }
                // every record appended before is either in the new, forced version or no longer live
                recordsDurable = recordsAppended;
            }
        }
    }

    private void append(PendingTransactionRecord record) throws IOException {
        ByteBuffer bytes = ByteBuffer.wrap(record.toRecord().getBytes(StandardCharsets.UTF_8));
        while (bytes.hasRemaining()) {
            channel.write(bytes);
        }
        recordsAppended++;
    }

    @Override
    public Collection<PendingTransactionRecord> getAllCoordinatorLogEntries() throws LogReadException {
        FileInputStream lastVersion;
        try {
            lastVersion = file.openLastValidVersionForReading();
        } catch (FileNotFoundException firstStart) {
            return List.of();
        }
        return FileSystemRepository.readFromInputStream(lastVersion);
    }

    /**
     * The records of a log in {@code directory} that are not TERMINATED, read without taking the log's lock: what a node
     * switching to the database log would leave behind.
     */
    static List<PendingTransactionRecord> pendingIn(String directory, String baseName) throws LogReadException {
        FileInputStream lastVersion;
        try {
            lastVersion = new VersionedFile(directory, baseName, ".log").openLastValidVersionForReading();
        } catch (FileNotFoundException noLog) {
            return List.of();
        }
        return FileSystemRepository.readFromInputStream(lastVersion).stream()
                .filter(record -> record.state != TxState.TERMINATED).toList();
    }

    /** Lookups are served by the in-memory copy in front of this file ({@code CachedRepository}). */
    @Override
    public PendingTransactionRecord get(String coordinatorId) {
        throw new UnsupportedOperationException("read through the in-memory repository");
    }

    @Override
    public Collection<PendingTransactionRecord> findAllCommittingCoordinatorLogEntries() {
        throw new UnsupportedOperationException("read through the in-memory repository");
    }

    @Override
    public synchronized void close() {
        try {
            file.close();
        } catch (IOException e) {
            throw new IllegalStateException("could not close the coordinator log " + file.getCurrentVersionFileName(), e);
        } finally {
            lock.releaseLock();
        }
    }
}
