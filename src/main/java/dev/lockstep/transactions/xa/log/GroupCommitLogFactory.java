package dev.lockstep.transactions.xa.log;

import com.atomikos.icatch.SysException;
import com.atomikos.icatch.config.Configuration;
import com.atomikos.icatch.provider.ConfigProperties;
import com.atomikos.recovery.LogException;
import com.atomikos.recovery.OltpLog;
import com.atomikos.recovery.OltpLogFactory;

/**
 * Atomikos's extension point for its coordinator log: its assembler finds this class through
 * {@code META-INF/services/com.atomikos.recovery.OltpLogFactory} and uses the log it creates, for
 * recovery too, since {@link GroupCommitLog} is also a {@code RecoveryLog}. Same directory, base name
 * and checkpoint interval as Atomikos's default log ({@code com.atomikos.icatch.log_base_dir},
 * {@code log_base_name}, {@code checkpoint_interval}), so an existing log is read on upgrade.
 */
public final class GroupCommitLogFactory implements OltpLogFactory {

    @Override
    public OltpLog createOltpLog() {
        ConfigProperties properties = Configuration.getConfigProperties();
        try {
            return new GroupCommitLog(new AppendOnlyLogFile(properties.getLogBaseDir(), properties.getLogBaseName()));
        } catch (LogException e) {
            throw new SysException("could not open the coordinator log in " + properties.getLogBaseDir() + ": "
                    + e.getMessage(), e);
        }
    }
}
