package dev.lockstep.transactions.xa.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.approval.ApiFlows;
import dev.lockstep.support.Api;
import dev.lockstep.support.UseCaseIntegrationTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;

/**
 * What the running service forces to disk in its coordinator log, seen through the JDK's own
 * {@code jdk.FileForce} events on the request threads: a two-phase submit forces its COMMITTING record and
 * nothing else (Atomikos's default log forced its TERMINATED record too, two per transaction), and a
 * business-only create forces nothing.
 */
class CoordinatorLogForcesTest extends UseCaseIntegrationTest {

    private static final int REQUESTS = 5;

    @Test
    void aTwoPhaseSubmitForcesTheLogAtMostOnceThroughTheGroupCommitLog() throws Exception {
        List<Long> drafts = new ArrayList<>();
        for (int i = 0; i < REQUESTS; i++) {
            drafts.add(ApiFlows.createDraft(api, "LOW", false));
        }

        double writesBefore = durableWrites();
        List<RecordedEvent> forces = logForcesOnRequestThreads(() -> drafts.forEach(id -> ApiFlows.submit(api, id)));
        double writes = durableWrites() - writesBefore;

        // one per submit, or fewer when another thread's force happened to cover a record (group commit)
        assertThat(forces).hasSizeBetween(1, REQUESTS).allSatisfy(force -> assertThat(methods(force))
                .contains(AppendOnlyLogFile.class.getName() + ".forceAppended", GroupCommitLog.class.getName() + ".write")
                .doesNotContain("com.atomikos.recovery.fs.FileSystemRepository.put"));
        // the metric counts every force of decision records, a background job's one-phase commits' as well
        assertThat(writes).as("lockstep_tm_log_durable_writes_total moved by the forces, at least those of the submits")
                .isGreaterThanOrEqualTo(forces.size());
        assertThat(drafts).allSatisfy(id -> assertThat(db.business()
                .queryForObject("select approval_status from application where id = ?", String.class, id)).isNotEqualTo("DRAFT"));
    }

    @Test
    void aBusinessOnlyCreateDoesNotTouchTheCoordinatorLog() throws Exception {
        List<RecordedEvent> forces = logForcesOnRequestThreads(() -> {
            for (int i = 0; i < REQUESTS; i++) {
                ApiFlows.createDraft(api, "LOW", false);
            }
        });

        assertThat(forces).isEmpty();
    }

    /** {@code lockstep_tm_log_durable_writes_total{store="file"}} as the service exposes it. */
    private double durableWrites() {
        Api.Response scrape = api.get("erin", "/actuator/prometheus", "text/plain");
        assertThat(scrape.status()).as(scrape.toString()).isEqualTo(200);
        Matcher series = Pattern.compile("(?m)^lockstep_tm_log_durable_writes_total\\{[^}]*store=\"file\"[^}]*\\} (\\S+)$")
                .matcher(scrape.body());
        assertThat(series.find()).as("lockstep_tm_log_durable_writes_total{store=\"file\"} in the scrape").isTrue();
        return Double.parseDouble(series.group(1));
    }

    private List<RecordedEvent> logForcesOnRequestThreads(Runnable requests) throws Exception {
        Path dump = Files.createTempFile("coordinator-log-forces", ".jfr");
        try (Recording recording = new Recording()) {
            recording.enable("jdk.FileForce").withThreshold(Duration.ZERO).withStackTrace();
            recording.start();
            requests.run();
            recording.stop();
            recording.dump(dump);
        }
        try {
            return RecordingFile.readAllEvents(dump).stream()
                    .filter(event -> event.getThread() != null && event.getThread().getJavaName().startsWith("http-nio-"))
                    // the coordinator log's forces, by who forced (Lockstep's log or Atomikos's own), not by path:
                    // Atomikos's configuration is one per JVM, so its log may live under another test context's home
                    .filter(event -> methods(event).stream().anyMatch(method -> method.startsWith("dev.lockstep.transactions.xa.log.")
                            || method.startsWith("com.atomikos.recovery.")))
                    // a checkpoint, every checkpoint_interval records, rewrites and forces the whole log: not per request
                    .filter(event -> !methods(event).contains(AppendOnlyLogFile.class.getName() + ".writeCheckpoint"))
                    .toList();
        } finally {
            Files.delete(dump);
        }
    }

    private static List<String> methods(RecordedEvent event) {
        return event.getStackTrace().getFrames().stream()
                .map(RecordedFrame::getMethod)
                .map(method -> method.getType().getName() + "." + method.getName())
                .toList();
    }
}
