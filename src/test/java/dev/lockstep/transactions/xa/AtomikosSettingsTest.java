package dev.lockstep.transactions.xa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.platform.StartupCheckFailure;
import dev.lockstep.platform.TestProperties;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AtomikosSettingsTest {

    @TempDir
    Path home;

    @Test
    void withoutAFileLockstepSetsIdentityLogTimeoutsHeuristicReportingParallelCommitAndNoCapOnActiveTransactions() {
        Properties atomikos = AtomikosSettings.of(TestProperties.embeddedAt(home, Map.of(
                "lockstep.tm.unique-name", "node-7.tm", "lockstep.tm.default-timeout", "20s")));

        assertThat(atomikos)
                .containsEntry("com.atomikos.icatch.tm_unique_name", "node-7.tm")
                .containsEntry("com.atomikos.icatch.log_base_dir", home.resolve("atomikos").toAbsolutePath().toString())
                .containsEntry("com.atomikos.icatch.log_base_name", "lockstep-tm")
                .containsEntry("com.atomikos.icatch.enable_logging", "true")
                .containsEntry("com.atomikos.icatch.default_jta_timeout", "20000")
                .containsEntry("com.atomikos.icatch.max_timeout", "300000")
                .containsEntry("com.atomikos.icatch.recovery_delay", "10000")
                .containsEntry("com.atomikos.icatch.max_actives", "-1")
                .containsEntry("com.atomikos.icatch.throw_on_heuristic", "true")
                .containsEntry("com.atomikos.icatch.threaded_2pc", "true")
                .containsEntry("lockstep.tm.log", "file")
                .hasSize(11);
    }

    /** Nodes in external mode keep no state of their own unless told to: the log is the business database's. */
    @Test
    void externalModeKeepsTheCoordinatorLogInTheDatabaseUnlessTheFileIsChosen() {
        assertThat(AtomikosSettings.of(TestProperties.embeddedAt(home, Map.of("lockstep.mode", "external"))))
                .containsEntry("lockstep.tm.log", "database");
        assertThat(AtomikosSettings.of(TestProperties.embeddedAt(home, Map.of("lockstep.mode", "external",
                "lockstep.tm.log", "file")))).containsEntry("lockstep.tm.log", "file");
    }

    @Test
    void parallelCommitOffReachesAtomikosAsThreaded2pcFalseAndTheFileCannotTurnItBackOn() throws IOException {
        Path file = Files.writeString(home.resolve("transactions.properties"), "com.atomikos.icatch.threaded_2pc=true\n");

        Properties atomikos = AtomikosSettings.of(TestProperties.embeddedAt(home, Map.of(
                "lockstep.tm.parallel-commit", "false", "lockstep.tm.properties-file", file.toString())));

        assertThat(atomikos).containsEntry("com.atomikos.icatch.threaded_2pc", "false");
    }

    @Test
    void theFileAddsAndOverridesDefaultsButLockstepTmSettingsWin() throws IOException {
        Path file = Files.writeString(home.resolve("transactions.properties"), """
                com.atomikos.icatch.max_actives=100
                com.atomikos.icatch.checkpoint_interval=42
                com.atomikos.icatch.tm_unique_name=from-file.tm
                com.atomikos.icatch.enable_logging=false
                """);

        Properties atomikos = AtomikosSettings.of(TestProperties.embeddedAt(home, Map.of(
                "lockstep.tm.unique-name", "node-7.tm", "lockstep.tm.properties-file", file.toString())));

        assertThat(atomikos)
                .containsEntry("com.atomikos.icatch.max_actives", "100")
                .containsEntry("com.atomikos.icatch.checkpoint_interval", "42")
                .containsEntry("com.atomikos.icatch.tm_unique_name", "node-7.tm")
                .containsEntry("com.atomikos.icatch.enable_logging", "true");
    }

    @Test
    void aMissingFileStopsStartupNamingTheSetting() {
        Path missing = home.resolve("nowhere.properties");

        assertThatThrownBy(() -> AtomikosSettings.of(TestProperties.embeddedAt(home,
                Map.of("lockstep.tm.properties-file", missing.toString()))))
                .isInstanceOf(StartupCheckFailure.class)
                .hasMessageStartingWith("lockstep.tm.properties-file: cannot read " + missing)
                .hasMessageContaining("LOCKSTEP_TM_PROPERTIES_FILE");
    }
}
