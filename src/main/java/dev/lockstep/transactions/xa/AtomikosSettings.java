package dev.lockstep.transactions.xa;

import dev.lockstep.platform.LockstepProperties;
import dev.lockstep.platform.StartupCheckFailure;
import dev.lockstep.transactions.xa.log.GroupCommitLogFactory;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The properties Lockstep hands to Atomikos, in increasing precedence: Lockstep's defaults, the
 * operator's file ({@code lockstep.tm.properties-file}, e.g. one of {@code xa-config/atomikos/}),
 * then the values Lockstep always sets from {@code lockstep.*}. Atomikos itself lets
 * {@code -Dcom.atomikos.icatch.*} system properties override all of these.
 */
final class AtomikosSettings {

    static final String PROPERTIES_FILE_SETTING = "lockstep.tm.properties-file";
    private static final Logger log = LoggerFactory.getLogger(AtomikosSettings.class);

    private AtomikosSettings() {
    }

    static Properties of(LockstepProperties properties) {
        LockstepProperties.Tm tm = properties.tm();
        Properties atomikos = new Properties();
        // Spring's JtaTransactionManager bounds each use case; Atomikos's default cap of 50 would be a second, hidden limit.
        atomikos.setProperty("com.atomikos.icatch.max_actives", "-1");
        if (tm.propertiesFile() != null) {
            atomikos.putAll(load(tm.propertiesFile()));
        }
        managed(properties).forEach((key, value) -> {
            String fromFile = atomikos.getProperty(key);
            if (fromFile != null && !fromFile.equals(value)) {
                log.warn("{} sets {}={}, ignored: Lockstep sets {} from lockstep.tm.*", tm.propertiesFile(), key, fromFile,
                        value);
            }
            atomikos.setProperty(key, value);
        });
        return atomikos;
    }

    /**
     * What Lockstep decides itself: identity, log store and location, timeouts, logging on (no recovery without it),
     * heuristic outcomes reported, and whether the branches are prepared and committed in parallel.
     */
    private static Map<String, String> managed(LockstepProperties properties) {
        LockstepProperties.Tm tm = properties.tm();
        Map<String, String> managed = new LinkedHashMap<>();
        managed.put("com.atomikos.icatch.tm_unique_name", tm.uniqueName());
        managed.put("com.atomikos.icatch.log_base_dir", properties.tmLogDir().toAbsolutePath().toString());
        managed.put("com.atomikos.icatch.log_base_name", GroupCommitLogFactory.BASE_NAME);
        managed.put(GroupCommitLogFactory.LOG_SETTING, GroupCommitLogFactory.storeOf(properties));
        managed.put("com.atomikos.icatch.enable_logging", "true");
        managed.put("com.atomikos.icatch.default_jta_timeout", Long.toString(tm.defaultTimeout().toMillis()));
        managed.put("com.atomikos.icatch.max_timeout", Long.toString(tm.maxTimeout().toMillis()));
        managed.put("com.atomikos.icatch.recovery_delay", Long.toString(tm.recoveryDelay().toMillis()));
        // Report heuristic outcomes to the caller: by default Atomikos returns from commit() normally
        // even when a branch's fate is unknown, and the client would be told a lost change succeeded.
        managed.put("com.atomikos.icatch.throw_on_heuristic", "true");
        // Prepare and commit the branches at once (ParallelCommitAssembler honors it; Atomikos's own assembler does not).
        managed.put(ParallelCommitAssembler.THREADED_2PC, Boolean.toString(tm.parallelCommit()));
        return managed;
    }

    private static Properties load(Path file) {
        Properties loaded = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            loaded.load(reader);
        } catch (IOException e) {
            throw new StartupCheckFailure(PROPERTIES_FILE_SETTING, "cannot read " + file.toAbsolutePath() + " (" + e + ").",
                    "point " + PROPERTIES_FILE_SETTING + " (env LOCKSTEP_TM_PROPERTIES_FILE) at a readable Atomikos"
                            + " properties file such as xa-config/atomikos/transactions-prod.properties, or remove it.");
        }
        return loaded;
    }
}
