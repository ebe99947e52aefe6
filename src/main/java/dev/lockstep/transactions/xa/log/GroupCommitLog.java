package dev.lockstep.transactions.xa.log;

import com.atomikos.recovery.LogException;
import com.atomikos.recovery.LogReadException;
import com.atomikos.recovery.LogWriteException;
import com.atomikos.recovery.OltpLog;
import com.atomikos.recovery.PendingTransactionRecord;
import com.atomikos.recovery.RecoveryLog;
import com.atomikos.recovery.TxState;
import com.atomikos.recovery.fs.CachedRepository;
import com.atomikos.recovery.fs.InMemoryRepository;
import com.atomikos.recovery.fs.OltpLogImp;
import com.atomikos.recovery.fs.RecoveryLogImp;
import java.util.Collection;

/**
 * The coordinator log Lockstep gives Atomikos (through {@link GroupCommitLogFactory}): Atomikos's own
 * {@link OltpLogImp}, {@link RecoveryLogImp} and {@link CachedRepository}, exactly as its default
 * assembly wires them, over a {@link GroupCommitRepository} — an {@link AppendOnlyLogFile} or a
 * {@link DatabaseLogRepository} — instead of its file repository. Two things differ, both about making
 * records durable:
 * <ul>
 * <li>a decision record (COMMITTING, and every other state but TERMINATED) is durable before
 * {@link #write} returns, as before, but concurrent decisions share one force or commit (group commit);</li>
 * <li>a TERMINATED record is appended without a force. Only a crash can lose it (of the operating system
 * for the file; of the node before its next commit for the database), and
 * then recovery finds the COMMITTING record, asks both databases to commit the XID again and hears
 * "unknown XID" — which Atomikos takes as already committed (chaos scenario 46 is that state).</li>
 * </ul>
 * The chaos suite's halt rules for the commit decision fire at the entry and exit of {@link #write}, so
 * "after the decision" means after its force.
 */
public final class GroupCommitLog implements OltpLog, RecoveryLog {

    private final GroupCommitRepository store;
    private final OltpLogImp records;
    private final RecoveryLogImp recovery;

    GroupCommitLog(GroupCommitRepository store) throws LogException {
        this.store = store;
        store.init();
        InMemoryRepository inMemory = new InMemoryRepository();
        inMemory.init();
        CachedRepository repository = new CachedRepository(inMemory, store);
        repository.init();
        records = new OltpLogImp();
        records.setRepository(repository);
        recovery = new RecoveryLogImp();
        recovery.setRepository(repository);
    }

    /** The store's forces (or commits) of decision records so far. */
    long forces() {
        return store.forces();
    }

    @Override
    public void write(PendingTransactionRecord record) throws LogWriteException {
        records.write(record);
        if (record.state != TxState.TERMINATED) {
            store.forceAppended();
        }
    }

    @Override
    public void recordAsCommitting(String coordinatorId) throws LogException {
        recovery.recordAsCommitting(coordinatorId);
        store.forceAppended();
    }

    @Override
    public void forgetTransactionRecords(Collection<PendingTransactionRecord> coordinators) {
        recovery.forgetTransactionRecords(coordinators);
    }

    @Override
    public void forget(String coordinatorId) {
        recovery.forget(coordinatorId);
    }

    @Override
    public PendingTransactionRecord get(String coordinatorId) throws LogReadException {
        return recovery.get(coordinatorId);
    }

    @Override
    public Collection<PendingTransactionRecord> getPendingTransactionRecords() throws LogReadException {
        return recovery.getPendingTransactionRecords();
    }

    @Override
    public Collection<PendingTransactionRecord> getIndoubtTransactionRecords() throws LogReadException {
        return recovery.getIndoubtTransactionRecords();
    }

    @Override
    public Collection<PendingTransactionRecord> getExpiredPendingCommittingTransactionRecordsAt(long time)
            throws LogReadException {
        return recovery.getExpiredPendingCommittingTransactionRecordsAt(time);
    }

    @Override
    public boolean isActive() {
        return recovery.isActive();
    }

    @Override
    public void closing() {
        recovery.closing();
    }

    @Override
    public void closed() {
        recovery.closed();
    }

    @Override
    public void close() {
        records.close();
    }
}
