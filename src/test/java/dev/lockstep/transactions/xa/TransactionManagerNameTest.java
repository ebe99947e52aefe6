package dev.lockstep.transactions.xa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.platform.StartupCheckFailure;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class TransactionManagerNameTest {

    @ParameterizedTest
    @ValueSource(strings = {"lockstep-1.tm", "node_10.tm", "a.tm", "ABCDEFGHIJKLMNOPQRSTUVWXYZ01234567890.tm"})
    void acceptsPrefixFreeNamesOfAtMost40Bytes(String name) {
        assertThat(TransactionManagerName.validate(name)).isEqualTo(name);
    }

    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(strings = {"   "})
    void refusesAMissingName(String name) {
        assertThatThrownBy(() -> TransactionManagerName.validate(name))
                .isInstanceOf(StartupCheckFailure.class)
                .hasMessageStartingWith("lockstep.tm.unique-name: is missing")
                .hasMessageContaining("LOCKSTEP_TM_UNIQUE_NAME");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345678901.tm", // 41 ASCII bytes
            "ééééééééééééééééééé.tm"                    // 22 characters, 41 bytes in UTF-8
    })
    void refusesNamesLongerThan40Bytes(String name) {
        assertThatThrownBy(() -> TransactionManagerName.validate(name))
                .isInstanceOf(StartupCheckFailure.class)
                .hasMessageContaining("lockstep.tm.unique-name: '" + name + "' is 41 bytes");
    }

    /** Each of these is, or could be, the start of another node's name: node1 / node10, a.b.tm / a.b.tm.tm. */
    @ParameterizedTest
    @ValueSource(strings = {"node1", "lockstep", "node1.tm.tm", "a.b.tm", "node 1.tm", ".tm", "node1.tm2", "node1.TM"})
    void refusesNamesThatCanPrefixAnotherName(String name) {
        assertThatThrownBy(() -> TransactionManagerName.validate(name))
                .isInstanceOf(StartupCheckFailure.class)
                .hasMessageContaining("lockstep.tm.unique-name: '" + name + "' could be a prefix of another node's name");
    }
}
