package dev.lockstep.transactions.xa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.atomikos.icatch.TransactionService;
import com.atomikos.icatch.config.Configuration;
import com.atomikos.icatch.provider.Assembler;
import com.atomikos.icatch.provider.ConfigProperties;
import dev.lockstep.platform.StartupCheckFailure;
import java.lang.reflect.Proxy;
import java.util.Properties;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/**
 * Which assembler Atomikos takes, and the startup check that refuses another one when parallel commit is on.
 * A service that really starts with the wrong one first: ParallelTwoPhaseCommitTest.
 */
class ParallelCommitAssemblerTest {

    @Test
    void onMavensClassPathTheServiceLoaderFindsLockstepsAssemblerBeforeAtomikoss() {
        // the very lookup of Configuration.loadAssembler: the first one wins
        Assembler first = ServiceLoader.load(Assembler.class, Configuration.class.getClassLoader()).iterator().next();
        assertThat(first).isInstanceOf(ParallelCommitAssembler.class);
    }

    @Test
    void aTransactionServiceThisAssemblerDidNotBuildIsRefusedWhenParallelCommitIsAskedFor() {
        TransactionService foreign = (TransactionService) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {TransactionService.class}, (proxy, method, args) -> null);

        assertThatThrownBy(() -> ParallelCommitAssembler.requireParallelCommit(foreign, threaded2pc("true")))
                .isInstanceOfSatisfying(StartupCheckFailure.class, failure -> {
                    assertThat(failure.setting()).isEqualTo("lockstep.tm.parallel-commit");
                    assertThat(failure.getMessage()).contains("another assembler than dev.lockstep.transactions.xa.ParallelCommitAssembler")
                            .contains("META-INF/services/com.atomikos.icatch.provider.Assembler");
                    assertThat(failure.fix()).contains("executable jar").contains("lockstep.tm.parallel-commit=false");
                });
        // one after the other is what any assembler gives: nothing to refuse
        ParallelCommitAssembler.requireParallelCommit(foreign, threaded2pc("false"));
    }

    @Test
    void theSettingIsOffUnlessItSaysTrue() {
        assertThat(ParallelCommitAssembler.parallelCommit(threaded2pc("true"))).isTrue();
        assertThat(ParallelCommitAssembler.parallelCommit(threaded2pc(" TRUE "))).isTrue();
        assertThat(ParallelCommitAssembler.parallelCommit(threaded2pc("false"))).isFalse();
        assertThat(ParallelCommitAssembler.parallelCommit(new ConfigProperties(new Properties()))).isFalse();
    }

    private static ConfigProperties threaded2pc(String value) {
        Properties properties = new Properties();
        properties.setProperty(ParallelCommitAssembler.THREADED_2PC, value);
        return new ConfigProperties(properties);
    }
}
