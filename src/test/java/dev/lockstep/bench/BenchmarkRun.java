package dev.lockstep.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The full benchmark, run by {@code mvn -Pbench verify} against the packaged jar (bench.jar, set by the
 * profile): XA vs single at each client level, the engine-settings stage, then the todo-at-scale and
 * recovery-time stages. Not part of the normal test suite; it asserts only that both deployments completed
 * cycles, that the engine-settings stage ran and that recovery left both databases consistent (after the
 * report is written either way).
 */
class BenchmarkRun {

    @Test
    void measureXaAgainstTheSingleDatabaseBaseline() throws Exception {
        BenchmarkSettings settings = BenchmarkSettings.fromSystemProperties(
                List.of("-cp", System.getProperty("java.class.path"), "dev.lockstep.LockstepApplication"));
        Benchmark.Report report = Benchmark.run(settings);

        System.out.println(BenchmarkSummary.markdown(report));
        assertThat(report.engineSettingsFailure()).as("engine-settings stage").isNull();
        assertThat(report.levels()).allSatisfy(level -> {
            assertThat(level.xa().cycles()).isPositive();
            assertThat(level.single().cycles()).isPositive();
        });

        ScaleAndRecoveryStages.Result stages = ScaleAndRecoveryStages.run(settings,
                TodoScaleBenchmark.Sizes.fromSystemProperties(), RecoveryTimeBenchmark.Sizes.fromSystemProperties());
        System.out.println(ScaleAndRecoveryStages.markdown(stages));
        assertThat(stages.recovery().inconsistent()).isEmpty();
        assertThat(stages.recovery().invariantViolations()).isEmpty();
    }
}
