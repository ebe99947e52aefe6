package dev.lockstep.transactions.xa.log;

import com.atomikos.recovery.LogWriteException;
import com.atomikos.recovery.fs.Repository;

/**
 * Where {@link GroupCommitLog} keeps its records: {@link #put} only appends, {@link #forceAppended()} makes every
 * record appended so far durable with one force or commit, however many threads appended since the last one.
 */
interface GroupCommitRepository extends Repository {

    /** Returns once every record the calling thread appended is durable; one force covers all appended by then. */
    void forceAppended() throws LogWriteException;

    /** Forces (or commits) of appended records so far, checkpoints not counted: what group commit saves shows here. */
    long forces();
}
