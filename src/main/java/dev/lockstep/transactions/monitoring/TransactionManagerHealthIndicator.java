package dev.lockstep.transactions.monitoring;

import com.atomikos.icatch.config.Configuration;
import com.atomikos.recovery.LogReadException;
import com.atomikos.recovery.RecoveryLog;
import dev.lockstep.platform.LockstepProperties;
import dev.lockstep.transactions.xa.log.GroupCommitLogFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * Health of the Atomikos transaction manager: running, its log directory writable (a commit decision
 * that cannot be logged cannot be made), and how many transactions its recovery log still holds as
 * pending, i.e. not yet known to be finished on every resource. With the log in the business database
 * ({@code lockstep.tm.log=database}) no directory is needed: whether the log can be written is the
 * business database's health.
 */
class TransactionManagerHealthIndicator implements HealthIndicator {

    private final String uniqueName;
    private final Path logDir;
    private final String log;

    TransactionManagerHealthIndicator(LockstepProperties properties) {
        this.uniqueName = properties.tm().uniqueName();
        this.logDir = properties.tmLogDir().toAbsolutePath().normalize();
        this.log = GroupCommitLogFactory.storeOf(properties);
    }

    @Override
    public Health health() {
        boolean running = Configuration.getTransactionService() != null;
        boolean logDirWritable = Files.isDirectory(logDir) && Files.isWritable(logDir);
        Health.Builder health = Health.unknown()
                .withDetail("uniqueName", uniqueName)
                .withDetail("running", running)
                .withDetail("log", log)
                .withDetail("logDir", logDir.toString())
                .withDetail("logDirWritable", logDirWritable);
        RecoveryLog recoveryLog = Configuration.getRecoveryLog();
        if (!running || recoveryLog == null) {
            return health.down().build();
        }
        try {
            health.withDetail("pendingTransactions", recoveryLog.getPendingTransactionRecords().size());
        } catch (LogReadException e) {
            return health.down(e).build();
        }
        return (logDirWritable || GroupCommitLogFactory.DATABASE.equals(log) ? health.up() : health.down()).build();
    }
}
