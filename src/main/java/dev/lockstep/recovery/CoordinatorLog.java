package dev.lockstep.recovery;

import com.atomikos.icatch.config.Configuration;
import com.atomikos.recovery.LogReadException;
import com.atomikos.recovery.PendingTransactionRecord;
import com.atomikos.recovery.RecoveryLog;
import java.util.HashMap;
import java.util.Map;

/**
 * This node's Atomikos recovery log, read through the only door the open-source build has
 * ({@link Configuration#getRecoveryLog()}): the file or, with {@code lockstep.tm.log=database}, the
 * in-memory copy of this name's rows of {@code tm_coordinator_log}. Other nodes' records are on their
 * disks or under their names in that table: for their XIDs the decision is unknown here.
 */
public class CoordinatorLog {

    /** The pending records by coordinator id (= the gtrid as text), with their state name. */
    public Map<String, String> pendingStates() {
        RecoveryLog log = Configuration.getRecoveryLog();
        Map<String, String> states = new HashMap<>();
        if (log == null) {
            return states;
        }
        try {
            for (PendingTransactionRecord record : log.getPendingTransactionRecords()) {
                states.put(record.id, record.state.name());
            }
        } catch (LogReadException e) {
            throw new IllegalStateException("cannot read the Atomikos recovery log: " + e.getMessage(), e);
        }
        return states;
    }
}
