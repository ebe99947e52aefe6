package dev.lockstep.transactions.xa.log;

import static org.assertj.core.api.Assertions.assertThat;

import com.atomikos.recovery.PendingTransactionRecord;
import com.atomikos.recovery.TxState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.stream.Collectors;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The coordinator log's file: appends in Atomikos's format (read back here by Atomikos's own reader),
 * forces only when asked, and then once for everything appended so far. Forces are counted twice: by the
 * file itself and by the JDK's own {@code jdk.FileForce} events on the log's path, so a counter that lied
 * would be caught.
 */
class AppendOnlyLogFileTest {

    private static final long IN_AN_HOUR = System.currentTimeMillis() + Duration.ofHours(1).toMillis();

    @TempDir
    Path directory;

    @Test
    void recordsAreReadBackByAtomikosWithTheLastStateOfEachTransaction() throws Exception {
        AppendOnlyLogFile file = open();
        file.put("a", record("a", TxState.COMMITTING));
        file.put("b", record("b", TxState.COMMITTING));
        file.put("a", record("a", TxState.TERMINATED));
        file.forceAppended();
        file.close();

        AppendOnlyLogFile reopened = open();
        assertThat(statesById(reopened)).isEqualTo(Map.of("a", TxState.TERMINATED, "b", TxState.COMMITTING));
        reopened.close();
    }

    @Test
    void appendingDoesNotForceAndOneForceCoversEverythingAppendedBeforeIt() throws Exception {
        AppendOnlyLogFile file = open();
        file.writeCheckpoint(List.of());

        List<RecordedEvent> forces = forcesOnTheLog(() -> {
            for (int i = 0; i < 5; i++) {
                file.put("t" + i, record("t" + i, TxState.COMMITTING));
            }
            file.forceAppended();
            file.forceAppended(); // nothing new appended: no second force
            return null;
        });

        assertThat(forces).hasSize(1);
        assertThat(file.forces()).isEqualTo(1);
        file.close();
    }

    @Test
    void aCheckpointKeepsOnlyTheLiveRecordsForcedInANewVersion() throws Exception {
        AppendOnlyLogFile file = open();
        file.writeCheckpoint(List.of());
        file.put("done", record("done", TxState.COMMITTING));
        file.put("open", record("open", TxState.COMMITTING));
        file.put("done", record("done", TxState.TERMINATED));

        List<RecordedEvent> forces = forcesOnTheLog(() -> {
            file.writeCheckpoint(List.of(record("open", TxState.COMMITTING)));
            file.forceAppended(); // the checkpoint's own force already covered every earlier append
            return null;
        });

        assertThat(forces).hasSize(1);
        assertThat(file.forces()).isZero();
        try (var versions = Files.list(directory)) {
            assertThat(versions.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".log"))).hasSize(1);
        }
        file.close();
        AppendOnlyLogFile reopened = open();
        assertThat(statesById(reopened)).isEqualTo(Map.of("open", TxState.COMMITTING));
        reopened.close();
    }

    @Test
    void concurrentWritersEachReturnDurableAndShareForces() throws Exception {
        int writers = 8;
        int recordsEach = 50;
        AppendOnlyLogFile file = open();
        file.writeCheckpoint(List.of());
        CyclicBarrier start = new CyclicBarrier(writers);
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        List<Future<?>> done = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            String writer = "w" + w;
            done.add(pool.submit(() -> {
                start.await();
                for (int i = 0; i < recordsEach; i++) {
                    file.put(writer + "-" + i, record(writer + "-" + i, TxState.COMMITTING));
                    file.forceAppended();
                }
                return null;
            }));
        }
        for (Future<?> writer : done) {
            writer.get();
        }
        pool.shutdown();

        assertThat(file.forces()).isBetween(1L, (long) writers * recordsEach);
        file.close();
        AppendOnlyLogFile reopened = open();
        assertThat(statesById(reopened)).hasSize(writers * recordsEach).containsValue(TxState.COMMITTING)
                .doesNotContainValue(TxState.TERMINATED);
        reopened.close();
    }

    private AppendOnlyLogFile open() throws Exception {
        AppendOnlyLogFile file = new AppendOnlyLogFile(directory.toString(), "lockstep-tm");
        file.init();
        return file;
    }

    private static PendingTransactionRecord record(String id, TxState state) {
        return new PendingTransactionRecord(id, state, IN_AN_HOUR, "lockstep-test.tm");
    }

    private static Map<String, TxState> statesById(AppendOnlyLogFile file) throws Exception {
        return file.getAllCoordinatorLogEntries().stream()
                .collect(Collectors.toMap(r -> r.id, r -> r.state));
    }

    private List<RecordedEvent> forcesOnTheLog(Callable<Void> work) throws Exception {
        Path dump = directory.resolve("forces.jfr");
        try (Recording recording = new Recording()) {
            recording.enable("jdk.FileForce").withThreshold(Duration.ZERO);
            recording.start();
            work.call();
            recording.stop();
            recording.dump(dump);
        }
        Function<RecordedEvent, String> path = event -> event.getString("path");
        List<RecordedEvent> forces = RecordingFile.readAllEvents(dump).stream()
                .filter(event -> path.apply(event) != null && path.apply(event).startsWith(directory.toString()))
                .toList();
        Files.delete(dump);
        return forces;
    }
}
