package dev.lockstep.transactions.xa.log;

import com.atomikos.icatch.SysException;
import com.atomikos.icatch.config.Configuration;
import com.atomikos.icatch.provider.ConfigProperties;
import com.atomikos.recovery.LogException;
import com.atomikos.recovery.LogReadException;
import com.atomikos.recovery.OltpLog;
import com.atomikos.recovery.OltpLogFactory;
import dev.lockstep.platform.AreaApi;
import dev.lockstep.platform.LockstepProperties;
import dev.lockstep.platform.StartupCheckFailure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Atomikos's extension point for its coordinator log: its assembler finds this class through
 * {@code META-INF/services/com.atomikos.recovery.OltpLogFactory} and uses the log it creates, for
 * recovery too, since {@link GroupCommitLog} is also a {@code RecoveryLog}. {@value #LOG_SETTING} (Lockstep
 * passes {@code lockstep.tm.log} on in Atomikos's properties) chooses the store: {@code file}, the same directory,
 * base name and checkpoint interval as Atomikos's default log ({@code com.atomikos.icatch.log_base_dir},
 * {@code log_base_name}, {@code checkpoint_interval}), so an existing log is read on upgrade; or {@code database},
 * the table in the business database the node installed as its {@link DatabaseLogTarget}.
 */
@AreaApi
public final class GroupCommitLogFactory implements OltpLogFactory {

    public static final String LOG_SETTING = "lockstep.tm.log";
    public static final String DATABASE = "database";
    public static final String FILE = "file";
    /** The file log's base name ({@code com.atomikos.icatch.log_base_name}). */
    public static final String BASE_NAME = "lockstep-tm";

    /** The log Atomikos asked for last: it creates it through this SPI, out of Spring's reach, so metrics find it here. */
    private static volatile GroupCommitLog created;

    /**
     * Durable writes of decision records so far by this JVM's coordinator log: forces of the file, or commits of the
     * table; one covers every decision queued by then (group commit). Zero before Atomikos has started.
     */
    public static long durableWrites() {
        GroupCommitLog log = created;
        return log == null ? 0 : log.forces();
    }

    /**
     * The store {@code lockstep.tm.log} names, or by default the business database in external mode, where nodes
     * come and go and must keep no state of their own, and a file under {@code lockstep.home} for the embedded demo.
     */
    public static String storeOf(LockstepProperties properties) {
        return storeOf(properties.tm().log(), properties.mode() == LockstepProperties.Mode.EXTERNAL);
    }

    /**
     * Refuses a switch of store that would leave this node's undone decisions behind, where the log now chosen cannot
     * read them: neither log reads the other's records, and recovery would presume abort of a transaction whose commit
     * the other log holds. {@code pendingInOtherStore}: the decisions (gtrids) the store not chosen still holds.
     */
    public static void refuseSwitchLeaving(String chosen, List<String> pendingInOtherStore, String where) {
        if (pendingInOtherStore.isEmpty()) {
            return;
        }
        String other = DATABASE.equals(chosen) ? FILE : DATABASE;
        throw new StartupCheckFailure(LOG_SETTING, "is " + chosen + ", but the " + other + " log (" + where + ") still holds "
                + pendingInOtherStore.size() + " unfinished decision(s) of this node, e.g. " + pendingInOtherStore.get(0)
                + ": switching now would leave them to no one (neither log reads the other's records).",
                "start this node once more with " + LOG_SETTING + "=" + other + " (env LOCKSTEP_TM_LOG) so its recovery"
                        + " finishes them, stop it cleanly, then switch to " + chosen + ".");
    }

    /** The gtrids of the file log under {@code directory} not yet TERMINATED; empty when there is no such log. */
    public static List<String> pendingInFileLog(String directory) {
        if (!Files.isDirectory(Path.of(directory))) {
            return List.of();
        }
        try {
            return AppendOnlyLogFile.pendingIn(directory, BASE_NAME).stream().map(record -> record.id).toList();
        } catch (LogReadException unreadable) {
            return List.of("(unreadable: " + unreadable.getMessage() + ")");
        }
    }

    static String storeOf(String configured, boolean externalMode) {
        if (configured != null) {
            return configured;
        }
        return externalMode ? DATABASE : FILE;
    }

    @Override
    public OltpLog createOltpLog() {
        ConfigProperties properties = Configuration.getConfigProperties();
        String store = properties.getCompletedProperties().getProperty(LOG_SETTING, FILE);
        try {
            created = DATABASE.equals(store) ? new GroupCommitLog(new DatabaseLogRepository(DatabaseLogTarget.installed()))
                    : new GroupCommitLog(new AppendOnlyLogFile(properties.getLogBaseDir(), properties.getLogBaseName()));
            return created;
        } catch (LogException e) {
            throw new SysException("could not open the coordinator log (" + LOG_SETTING + "=" + store + ", "
                    + properties.getLogBaseDir() + "): " + e.getMessage(), e);
        }
    }
}
