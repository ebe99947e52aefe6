package dev.lockstep.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.bench.ApprovalCycleClient.Operation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Keeps the harness working: a few seconds of one client against both deployments, started as
 * separate JVMs from the test classpath. Checks that cycles completed without errors and that the
 * report files appear; no figure is asserted.
 */
class BenchmarkSmokeTest {

    @Test
    void oneClientCompletesApprovalCyclesOnBothDeploymentsAndTheReportIsWritten() throws Exception {
        Path output = Path.of("target/bench-smoke");
        // a JIT warm-up of one slice, whose threshold any share meets; six seconds, because a cold service on a
        // machine busy with the other test JVM has finished no cycle at all in two
        BenchmarkSettings settings = new BenchmarkSettings(List.of(1), Duration.ofSeconds(3), Duration.ofSeconds(8),
                List.of("-cp", System.getProperty("java.class.path"), "dev.lockstep.LockstepApplication"), output, false,
                Duration.ZERO, Duration.ZERO, new BenchmarkSettings.Warmup(Duration.ofSeconds(30), 1, Duration.ofSeconds(6), 1.01),
                2, Duration.ofSeconds(1));

        Benchmark.Report report = Benchmark.run(settings);

        assertThat(report.jitWarmups().values()).allSatisfy(warmup -> {
            assertThat(warmup.reached()).isTrue();
            assertThat(warmup.slices()).hasSize(1);
            assertThat(warmup.cycles()).isPositive();
        });
        Benchmark.LevelResult level = report.levels().get(0);
        assertThat(level.xa().cyclesPerSecondByRound()).hasSize(2);
        assertThat(level.single().cyclesPerSecondByRound()).hasSize(2);
        for (Benchmark.DeploymentResult deployment : List.of(level.xa(), level.single())) {
            assertThat(deployment.cycles()).isPositive();
            assertThat(deployment.operations().values()).allSatisfy(operation -> assertThat(operation.errors()).isZero());
            assertThat(deployment.operations().get(Operation.SUBMIT).count()).isPositive();
        }
        assertThat(level.xa().walPerCycle()).containsOnlyKeys("lockstep_business", "lockstep_workflow");
        assertThat(level.single().walPerCycle()).containsOnlyKeys("lockstep");
        assertThat(level.xa().xaPhases()).containsKeys("prepare business-db", "prepare workflow-db", "decision log");
        assertThat(level.single().xaPhases()).isEmpty();
        // Linux: every process of each deployment is found and spent CPU in the window
        assertThat(level.xa().cpuMillisPerCycle()).containsOnlyKeys(ProcessCpu.SERVICE_JVM, "lockstep_business",
                "lockstep_workflow", ProcessCpu.LOAD_GENERATOR).allSatisfy((process, millis) -> assertThat(millis).isPositive());
        assertThat(level.single().cpuMillisPerCycle()).containsOnlyKeys(ProcessCpu.SERVICE_JVM, "lockstep",
                ProcessCpu.LOAD_GENERATOR).allSatisfy((process, millis) -> assertThat(millis).isPositive());
        assertThat(level.xa().serviceThreadMillisPerCycle()).containsKeys(ProcessCpu.HTTP_THREADS, ProcessCpu.JIT_COMPILER,
                ProcessCpu.GARBAGE_COLLECTOR, ProcessCpu.OTHER_THREADS, ProcessCpu.ENDED_THREADS);
        assertThat(level.xa().serviceThreadMillisPerCycle().get(ProcessCpu.HTTP_THREADS)).isPositive();
        // JFR recorded the service over the 1-client window: samples on the CPU and on the request threads
        for (Benchmark.DeploymentResult deployment : List.of(level.xa(), level.single())) {
            assertThat(deployment.profile().cpuSamples()).isPositive();
            assertThat(deployment.profile().requestThreadMillis()).isPositive();
            assertThat(deployment.profile().wallByLockstepFrame()).isNotEmpty();
        }
        assertThat(output.resolve("xa-1-clients.jfr")).isNotEmptyFile();
        assertThat(output.resolve("report.json")).isNotEmptyFile();
        assertThat(output.resolve(LatencyChart.FILE)).isNotEmptyFile();
        assertThat(Files.readString(output.resolve("summary.md"))).contains("| 1 |").contains("JFR, `xa-1-clients.jfr`");
    }

    @Test
    void theTodoScaleAndRecoveryStagesRunAtTinySizesAndLeaveBothDatabasesConsistent() throws Exception {
        Path output = Path.of("target/bench-smoke-stages");
        ServiceUnderTest.deleteRecursively(output); // the stages append to a report the comparison would have written
        BenchmarkSettings settings = new BenchmarkSettings(List.of(), Duration.ZERO, Duration.ZERO,
                List.of("-cp", System.getProperty("java.class.path"), "dev.lockstep.LockstepApplication"), output);

        ScaleAndRecoveryStages.Result result = ScaleAndRecoveryStages.run(settings,
                new TodoScaleBenchmark.Sizes(200, 2_000, 20, 8, 8, 4, 4, 3, 4, 32), new RecoveryTimeBenchmark.Sizes(6, Duration.ofMinutes(5), Duration.ofSeconds(30)));

        TodoScaleBenchmark.Result todo = result.todoScale();
        assertThat(todo.projectionRows()).isEqualTo(2_200);
        assertThat(todo.deepPageReached()).containsEntry(TodoScaleBenchmark.Page.DONE_DEEP, 3);
        assertThat(todo.withIndexes().pages().values()).allSatisfy(page -> assertThat(page.count()).isEqualTo(8));
        assertThat(todo.withIndexes().explain().get(TodoScaleBenchmark.Page.TODO_FIRST)).contains("task_projection");
        assertThat(todo.concurrent().pages().values()).allSatisfy(page -> assertThat(page.count()).isEqualTo(32));
        assertThat(todo.withIndexes().profile().requestThreadMillis()).isPositive();
        assertThat(todo.concurrent().profile()).as("4 readers is not a profiled level").isNull();
        RecoveryTimeBenchmark.Result recovery = result.recovery();
        assertThat(recovery.applications()).isEqualTo(6);
        assertThat(recovery.heldBeforeDecision() + recovery.heldAfterDecision()).isEqualTo(6);
        assertThat(recovery.heldBeforeDecision()).as("some held before the decision: recovery presumes abort").isPositive();
        assertThat(recovery.heldAfterDecision()).as("some held after it: recovery replays the commit").isPositive();
        assertThat(recovery.preparedBusinessAtHalt()).isEqualTo(6);
        assertThat(recovery.preparedWorkflowAtHalt()).isEqualTo(6);
        assertThat(recovery.committedOnBoth()).isEqualTo(recovery.heldAfterDecision());
        assertThat(recovery.abortedOnBoth()).isEqualTo(recovery.heldBeforeDecision());
        assertThat(recovery.inconsistent()).isEmpty();
        assertThat(recovery.invariantViolations()).isEmpty();
        assertThat(Files.readString(output.resolve("summary.md"))).contains("## Recovery time");
    }

    @Test
    void theHistoryStageSeedsEndedProcessesAndArchivalMovesEveryRowOfThem() throws Exception {
        BenchmarkSettings settings = new BenchmarkSettings(List.of(), Duration.ZERO, Duration.ZERO,
                List.of("-cp", System.getProperty("java.class.path"), "dev.lockstep.LockstepApplication"),
                Path.of("target/bench-smoke-history"));

        HistoryArchivalBenchmark.Result result = HistoryArchivalBenchmark.run(settings, new HistoryArchivalBenchmark.Sizes(
                2_000, 50, 1, Duration.ofMinutes(10), Duration.ZERO, 4, 2, 3, 1, Duration.ofSeconds(2), Duration.ofSeconds(4)));

        EndedHistorySeed.Result seed = result.seed();
        long rowsPerCopy = seed.templateRows().values().stream().mapToLong(Long::longValue).sum();
        assertThat(seed.templateRows()).hasSize(EndedHistorySeed.TEMPLATES.size()).allSatisfy((shape, rows) ->
                assertThat(rows).isGreaterThan(5));
        assertThat(seed.historyRows()).isGreaterThanOrEqualTo(2_000).isEqualTo(seed.copies() * rowsPerCopy);
        assertThat(seed.processes()).isEqualTo(seed.copies() * EndedHistorySeed.TEMPLATES.size());
        assertThat(seed.businessRows()).isPositive();
        assertThat(result.before().historyRows()).isGreaterThanOrEqualTo(seed.historyRows());
        HistoryArchivalBenchmark.Archival archival = result.archival();
        // several calls of the endpoint, one batch of 50 each, until nothing was due
        assertThat(archival.finished()).isTrue();
        assertThat(archival.legs()).singleElement().satisfies(leg -> {
            assertThat(leg.engineIndexes()).isTrue();
            assertThat(leg.segments()).hasSizeGreaterThan(1);
        });
        assertThat(archival.processes()).isEqualTo(seed.processes());
        assertThat(archival.rows()).isEqualTo(seed.historyRows());
        // read with plain SQL: every seeded row is in the archive and no due process is left in the engine's history
        assertThat(archival.archivedProcesses()).isEqualTo(seed.processes());
        assertThat(archival.archivedRows()).isEqualTo(seed.historyRows());
        assertThat(archival.dueProcessesLeft()).isZero();
        assertThat(archival.historyRowsLeft()).isEqualTo(archival.historyRowsAtStart() - seed.historyRows());
        for (HistoryArchivalBenchmark.Measurement measured : List.of(result.before(), result.after(), result.controlBefore(),
                result.controlAfter())) {
            assertThat(measured.pages().values()).allSatisfy(page -> assertThat(page.count()).isEqualTo(4));
            assertThat(measured.cycles().cycles()).isPositive();
            assertThat(measured.cycles().operations().values()).allSatisfy(operation -> assertThat(operation.errors()).isZero());
        }
        assertThat(result.after().historyRows()).isEqualTo(archival.historyRowsLeft());
        assertThat(result.controlBefore().historyRows()).isLessThan(200);
        assertThat(HistoryArchivalBenchmark.markdown(result)).contains("rows/s");
    }
}
