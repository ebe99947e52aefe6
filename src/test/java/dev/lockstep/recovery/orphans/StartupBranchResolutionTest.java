package dev.lockstep.recovery.orphans;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.recovery.PreparedBranches;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.ServiceProcess;
import dev.lockstep.support.TestDatabases;
import dev.lockstep.transactions.xa.DecodedXid;
import dev.lockstep.transactions.xa.PgGidCodec;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import javax.transaction.xa.Xid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Scenario: a node crashed with a transaction prepared on both databases and no commit decision
 * logged. Expected: its restart rolls both branches back before it takes requests — not five minutes
 * later when Atomikos would presume abort — while another node's branch stays, a transaction with a
 * COMMITTING record is committed before it answers too, even when that record was written under a much
 * longer timeout than the restart's max-timeout (Atomikos alone would presume abort of it before the record
 * expired: a half-committed transaction), and a start on a new (empty)
 * coordinator log rolls back nothing. The node under test is a separate JVM ("orphan-n3.tm",
 * external mode) on this test's two databases; the branches are prepared through pgjdbc's XAResource
 * with Atomikos-shaped XIDs whose gtrid carries a time an hour ago; every check reads pg_prepared_xacts
 * and the audit table with plain SQL.
 */
@LockstepIntegrationTest
class StartupBranchResolutionTest {

    static final String NODE = "orphan-n3.tm";
    static final String OTHER_NODE = "orphan-n4.tm";
    private static final String PASSWORD = UUID.randomUUID().toString();

    @Autowired TestDatabases db;
    @Autowired DatabaseEndpoints endpoints;

    @AfterEach
    void rollBackLeftovers() {
        PreparedBranches.rollBackAll(db.business(), db.workflow());
        // the committed one's row: tests that count 'in-doubt test' rows share this database
        db.business().update("delete from application where title = 'in-doubt test'");
    }

    @Test
    void aRestartRollsBackItsOwnUndecidedBranchesAndNothingElse() throws Exception {
        Path home = Path.of("target", "orphan-test", UUID.randomUUID().toString()).toAbsolutePath();
        PreparedBranches prepared = new PreparedBranches(endpoints);
        String earlier = System.currentTimeMillis() - Duration.ofHours(1).toMillis() + "00017";
        String ownBeforeFirstStart = NODE + earlier;
        String othersBranch = OTHER_NODE + earlier;
        prepared.prepareOnBusiness(xid(NODE, ownBeforeFirstStart, "1"));
        prepared.prepareOnWorkflow(xid(NODE, ownBeforeFirstStart, "2"));
        prepared.prepareOnBusiness(xid(OTHER_NODE, othersBranch, "1"));

        try (ServiceProcess first = ServiceProcess.start(home, environment()).awaitUp()) {
            assertThat(preparedGtrids()).as("a new coordinator log proves nothing: no rollback")
                    .contains(ownBeforeFirstStart, othersBranch);
            assertThat(createDraft(first).statusCode()).as("gives the coordinator log its first records").isEqualTo(201);
            first.kill();
        }
        // A crash after the commit point: both branches prepared, the COMMITTING record in the log. The crashed JVM
        // ran a timeout far longer than the restart's max-timeout, so the record expires only in an hour.
        long decidedBegan = System.currentTimeMillis() - Duration.ofMinutes(1).toMillis();
        String decided = NODE + decidedBegan + "00019";
        prepared.prepareOnBusiness(xid(NODE, decided, "3"));
        prepared.prepareOnWorkflow(xid(NODE, decided, "4"));
        logCommitDecision(home.resolve("atomikos"), decided, decidedBegan + Duration.ofHours(1).toMillis());
        int inDoubtRowsBefore = inDoubtRows();

        try (ServiceProcess restarted = ServiceProcess.start(home, environment()).awaitUp()) {
            assertThat(preparedGtrids()).as("its own undecided branches are gone on both databases once it answers")
                    .doesNotContain(ownBeforeFirstStart)
                    .contains(othersBranch);
            assertThat(db.business().queryForList(
                    "select action from recovery_audit where gtrid = ? and actor = 'startup-recovery' order by seq",
                    String.class, ownBeforeFirstStart)).containsExactly(
                    "ORPHAN_ROLLBACK_INTENDED", "ORPHAN_ROLLBACK_ROLLED_BACK",
                    "ORPHAN_ROLLBACK_INTENDED", "ORPHAN_ROLLBACK_ROLLED_BACK");
            assertThat(db.business().queryForObject("select count(*) from recovery_audit where gtrid = ?", Integer.class,
                    othersBranch)).isZero();
            assertThat(restarted.output()).contains("startup orphan rollback of business-db branch");

            assertThat(preparedGtrids()).as("the decided transaction is committed on both databases once it answers")
                    .doesNotContain(decided);
            assertThat(db.business().queryForList(
                    "select action from recovery_audit where gtrid = ? and actor = 'startup-recovery' order by seq",
                    String.class, decided)).as("a decided transaction is never rolled back: its logged commit is replayed")
                    .containsExactly("LOGGED_COMMIT_REPLAY_INTENDED", "LOGGED_COMMIT_REPLAY_COMMITTED",
                            "LOGGED_COMMIT_REPLAY_INTENDED", "LOGGED_COMMIT_REPLAY_COMMITTED");
            assertThat(inDoubtRows()).as("its business branch committed: the row it inserted is there")
                    .isEqualTo(inDoubtRowsBefore + 1);
        }
    }

    /**
     * Appends what Atomikos forces to its log at the commit point, in its own line format
     * ({@code gtrid|state|expiry millis|tm name|}, as the first run's log file shows), as a crash
     * between the commit point and phase two leaves it. The expiry is the transaction's begin plus its
     * timeout; Atomikos's own recovery replays only expired COMMITTING records.
     */
    private static void logCommitDecision(Path logDir, String gtrid, long expires) throws Exception {
        Path log;
        try (Stream<Path> files = Files.list(logDir)) {
            log = files.filter(file -> file.getFileName().toString().matches("lockstep-tm\\d*\\.log")).findFirst()
                    .orElseThrow();
        }
        Files.writeString(log, gtrid + "|COMMITTING|" + expires + "|" + NODE + "|\n", StandardOpenOption.APPEND);
    }

    /** Rows PreparedBranches.prepareOnBusiness inserts: visible only once such a branch committed. */
    private int inDoubtRows() {
        return db.business().queryForObject("select count(*) from application where title = 'in-doubt test'", Integer.class);
    }

    private static Xid xid(String tm, String gtrid, String branch) {
        return PreparedBranches.xid(DecodedXid.ATOMIKOS_FORMAT_ID, gtrid, tm + branch);
    }

    private List<String> preparedGtrids() {
        return db.preparedTransactions().stream()
                .map(row -> PgGidCodec.decode((String) row.get("gid")).map(DecodedXid::gtridText).orElse("?"))
                .toList();
    }

    private Map<String, String> environment() {
        Map<String, String> environment = ServiceProcess.externalModeOn(endpoints, NODE);
        environment.put("LOCKSTEP_SECURITY_USERS_0_NAME", "ann");
        environment.put("LOCKSTEP_SECURITY_USERS_0_PASSWORD", "{noop}" + PASSWORD);
        environment.put("LOCKSTEP_SECURITY_USERS_0_ROLES", "APPLICANT");
        return environment;
    }

    private static HttpResponse<String> createDraft(ServiceProcess service) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(service.baseUrl() + "/api/applications"))
                .header("Authorization", ServiceProcess.basic("ann", PASSWORD))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("""
                        {"title": "Before the crash", "assetId": 3, "amount": 10.00, "riskLevel": "LOW", "sensitive": false}"""))
                .build();
        return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
    }
}
