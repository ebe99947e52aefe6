package dev.lockstep.recovery;

import java.util.List;

/** The prepared branches of one XA resource, and the two ways a DBA can end one. */
public interface BranchStore {

    String resource();

    List<PreparedBranch> scan();

    /** Commits a prepared branch by its raw id; false when the database no longer knows it. */
    boolean commit(String rawId);

    /** Rolls back a prepared branch by its raw id; false when the database no longer knows it. */
    boolean rollback(String rawId);
}
