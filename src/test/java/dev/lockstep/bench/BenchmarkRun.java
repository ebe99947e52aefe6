package dev.lockstep.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The full benchmark, run by {@code mvn -Pbench verify} against the packaged jar (bench.jar, set by the
 * profile): XA vs single at each client level, the engine-settings stage, then the todo-at-scale and
 * recovery-time stages, then publishing, then history at scale and its archival, then deployed definitions. Not part of the normal test suite; it asserts only that both deployments
 * completed cycles, that the engine-settings stage ran, that recovery left both databases consistent and that
 * every approval was published (after the report is written either way).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BenchmarkRun {

    private static BenchmarkSettings settings() {
        return BenchmarkSettings.fromSystemProperties(
                List.of("-cp", System.getProperty("java.class.path"), "dev.lockstep.LockstepApplication"));
    }

    @Test
    @Order(1)
    void measureXaAgainstTheSingleDatabaseBaseline() throws Exception {
        BenchmarkSettings settings = settings();
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

    /** Alone: {@code mvn -Pbench verify -Dit.test='BenchmarkRun#measurePublishing'} (docs/performance.md). */
    @Test
    @Order(2)
    void measurePublishing() throws Exception {
        BenchmarkSettings settings = settings();
        PublishBenchmark.Result result = PublishBenchmark.run(settings, Integer.getInteger("bench.publish-clients", 16));
        String markdown = PublishBenchmark.markdown(result);
        ReportFiles.append(settings.outputDir(), Map.of("publishing", result), markdown);
        System.out.println(markdown);
        assertThat(result.eventsUnderLoad()).isPositive();
    }

    /**
     * Alone: {@code mvn -Pbench verify -Dit.test='BenchmarkRun#measureHistoryArchival'}, scale and limit in
     * {@code bench.history.*} (docs/performance.md, "History at 10 million rows").
     */
    @Test
    @Order(3)
    void measureHistoryArchival() throws Exception {
        BenchmarkSettings settings = settings();
        HistoryArchivalBenchmark.Result result = HistoryArchivalBenchmark.run(settings,
                HistoryArchivalBenchmark.Sizes.fromSystemProperties());
        String markdown = HistoryArchivalBenchmark.markdown(result);
        ReportFiles.append(settings.outputDir(), Map.of("historyArchival", result), markdown);
        System.out.println(markdown);
        assertThat(result.archival().rows()).isPositive();
        assertThat(result.archival().archivedRows()).isEqualTo(result.archival().rows());
    }

    /**
     * Alone: {@code mvn -Pbench verify -Dit.test='BenchmarkRun#measureDeployedDefinitions'} (docs/performance.md, "Deployed
     * definitions"); clients {@code bench.definition-clients} (4), rounds {@code bench.definition-rounds} (3), deployments
     * of each flow {@code bench.definition-deploys} (5).
     */
    @Test
    @Order(4)
    void measureDeployedDefinitions() throws Exception {
        BenchmarkSettings settings = settings();
        DefinitionBenchmark.Result result = DefinitionBenchmark.run(settings, Integer.getInteger("bench.definition-clients", 4),
                Integer.getInteger("bench.definition-rounds", 3), Integer.getInteger("bench.definition-deploys", 5));
        String markdown = DefinitionBenchmark.markdown(result);
        ReportFiles.append(settings.outputDir(), Map.of("deployedDefinitions", result), markdown);
        System.out.println(markdown);
        assertThat(result.deployedCyclesPerSecond()).allMatch(rate -> rate > 0);
        assertThat(result.deployedWithDeadlinesCyclesPerSecond()).allMatch(rate -> rate > 0);
        assertThat(result.builtInCyclesPerSecond()).allMatch(rate -> rate > 0);
    }

    /**
     * Alone: {@code mvn -Pbench verify -Dit.test='BenchmarkRun#measureAuditVerification'} (docs/performance.md, "Offline
     * verification of an evidence bundle"); size {@code bench.audit.entries} (1000000), heap {@code bench.audit.heap} (64m).
     */
    @Test
    @Order(5)
    void measureAuditVerification() throws Exception {
        BenchmarkSettings settings = settings();
        AuditVerificationBenchmark.Result result = AuditVerificationBenchmark.run(settings,
                Long.getLong("bench.audit.entries", 1_000_000), System.getProperty("bench.audit.heap", "64m"));
        String markdown = AuditVerificationBenchmark.markdown(result);
        ReportFiles.append(settings.outputDir(), Map.of("auditVerification", result), markdown);
        System.out.println(markdown);
        assertThat(result.exitCode()).as(result.verifierOutput()).isZero();
    }

    /**
     * Alone: {@code mvn -Pbench verify -Dit.test='BenchmarkRun#measureDecisionLog'} (docs/performance.md, "Decision log:
     * file against database"); levels {@code bench.decision-log-clients} (1,16), rounds {@code bench.decision-log-rounds} (3).
     */
    @Test
    @Order(6)
    void measureDecisionLog() throws Exception {
        BenchmarkSettings settings = settings();
        List<Integer> levels = Arrays.stream(System.getProperty("bench.decision-log-clients", "1,16").split(","))
                .map(String::trim).map(Integer::valueOf).toList();
        DecisionLogBenchmark.Result result = DecisionLogBenchmark.run(settings, levels,
                Integer.getInteger("bench.decision-log-rounds", 3));
        String markdown = DecisionLogBenchmark.markdown(result, levels);
        ReportFiles.append(settings.outputDir(), Map.of("decisionLog", result), markdown);
        System.out.println(markdown);
        assertThat(result.windows()).allSatisfy(window -> assertThat(window.cycles()).isPositive());
    }
}
