package dev.lockstep.transactions.xa.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.platform.FencedNode;
import dev.lockstep.recovery.PreparedBranches;
import dev.lockstep.support.Api;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.SecondNode;
import dev.lockstep.support.TestDatabases;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.mock.env.MockEnvironment;

/**
 * {@code lockstep.tm.log=database} on a node of its own (a JVM from the test class path, external mode on this
 * context's two databases), read with plain SQL: a submit's commit decision is a row of tm_coordinator_log under the
 * node's lease epoch; a node halted right after logging it (Byteman, at the exit of GroupCommitLog.write) leaves both
 * branches prepared, and the node restarted under its name finishes them from the table; a node whose name was taken
 * under a newer epoch behind its back is refused by the database and stops with the fenced message.
 */
@LockstepIntegrationTest
class CoordinatorLogInDatabaseTest {

    @Autowired DatabaseEndpoints endpoints;
    @Autowired TestDatabases db;

    private final List<SecondNode> nodes = new ArrayList<>();

    @AfterEach
    void stopTheNodes() {
        nodes.forEach(node -> node.jvm().stop(Duration.ofSeconds(30)));
        // a failed test must not leave the branches of its halted nodes to the next test class's nodes
        PreparedBranches.rollBackAll(db.business(), db.workflow());
    }

    /**
     * Expected: the first submit commits and its COMMITTING row is there under epoch E; the second halts the node
     * after its row is committed, with both branches prepared; the restart (epoch E + 1) commits both from the
     * table; a submit's row is COMMITTING, and TERMINATED once the next decision's commit carried it. Then the
     * restarted node's name is taken behind its back, and its heartbeat stops it with the fenced message.
     */
    @Test
    void aDecisionIsARowOfTheTableAndACrashAfterItIsFinishedOnRestart() throws Exception {
        String tmName = "dblog-crash-" + System.nanoTime() % 100000 + ".tm";
        Path home = Files.createDirectories(Path.of("target/it-var/" + tmName + "-" + UUID.randomUUID()).toAbsolutePath());
        Path arm = home.resolve("armed");
        Path rules = home.resolve("halt-at-commit-decision.btm");
        try (InputStream in = Objects.requireNonNull(getClass().getResourceAsStream("/oracle/halt-at-commit-decision.btm"))) {
            Files.writeString(rules, new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("@ARM@", arm.toString()));
        }
        List<String> settings = settings(home, "10s");
        Api api = start(tmName, List.of(SecondNode.bytemanAgent(rules)), settings);
        long epoch = epochOf(tmName);

        long first = draft(api);
        assertThat(submit(api, first).status()).isEqualTo(200);
        String firstGtrid = gtridOf(tmName, first);
        assertThat(logRow(tmName, firstGtrid)).as("the decision was committed to the table")
                .isIn("COMMITTING@" + epoch, "TERMINATED@" + epoch);

        long second = draft(api);
        Files.writeString(arm.resolveSibling("armed.after"), "armed");
        assertThat(catchThrowable(() -> submit(api, second)))
                .as("the node halts inside the submit").isNotNull();
        SecondNode halted = nodes.get(0);
        assertThat(halted.jvm().awaitExit(Duration.ofSeconds(60))).isTrue();
        assertThat(halted.log()).contains("ORACLE-IT halt after logging COMMITTING");
        Files.delete(arm.resolveSibling("armed.after"));
        String secondGtrid = gtridOf(tmName, second);
        assertThat(logRow(tmName, secondGtrid)).isEqualTo("COMMITTING@" + epoch);
        assertThat(prepared(secondGtrid)).as("both branches prepared").isEqualTo(2);

        Api restarted = start(tmName, List.of(), settings);
        assertThat(epochOf(tmName)).isEqualTo(epoch + 1);
        awaitNothingPrepared(secondGtrid);
        assertThat(db.business().queryForObject("select approval_status from application where id = ?", String.class, second))
                .isEqualTo("APPROVING");
        assertThat(db.engineRowsForBusinessKey(second)).as("the process committed on the workflow database").isPositive();

        long third = draft(restarted);
        long fourth = draft(restarted);
        assertThat(submit(restarted, third).status()).isEqualTo(200);
        String thirdGtrid = gtridOf(tmName, third);
        assertThat(logRow(tmName, thirdGtrid)).isIn("COMMITTING@" + (epoch + 1), "TERMINATED@" + (epoch + 1));
        assertThat(submit(restarted, fourth).status()).isEqualTo(200);
        assertThat(logRow(tmName, thirdGtrid)).as("the next decision's commit carried its TERMINATED record")
                .isIn("TERMINATED@" + (epoch + 1), "none");

        db.business().update("update recovery_node set epoch = epoch + 1 where tm_name = ?", tmName);
        SecondNode fenced = nodes.get(1);
        assertThat(fenced.jvm().awaitExit(Duration.ofSeconds(60))).as("the heartbeat finds the newer epoch").isTrue();
        assertThat(fenced.jvm().exitValue()).isEqualTo(FencedNode.EXIT_CODE);
        assertThat(fenced.log()).contains("FENCED: transaction manager name " + tmName + " is held under lease epoch "
                + (epoch + 2) + ", this node holds epoch " + (epoch + 1));
    }

    /**
     * Expected (issue 31, the takeover CI runs): a node halted for good right after logging a submit's decision, both
     * branches prepared, is never started again; once its lease has run out a peer takes its name under the next epoch
     * and commits both branches from the table, well within 30 s of the expiry (printed); the intent journal says
     * COMMITTED, the audit trail names the takeover and each branch's commit, the record is gone and the name given
     * back. The client's retry of the cut-off submit through the peer, under its Idempotency-Key, gets the original
     * answer and starts nothing twice.
     */
    @Test
    void aNodeHaltedForGoodIsFinishedByAPeerUnderTheNextEpoch() throws Exception {
        String suffix = Long.toString(System.nanoTime() % 100000);
        String deadName = "dblog-dead-" + suffix + ".tm";
        String peerName = "dblog-peer-" + suffix + ".tm";
        Path home = Files.createDirectories(Path.of("target/it-var/" + deadName + "-" + UUID.randomUUID()).toAbsolutePath());
        Path arm = home.resolve("armed");
        Path rules = home.resolve("halt-at-commit-decision.btm");
        try (InputStream in = Objects.requireNonNull(getClass().getResourceAsStream("/oracle/halt-at-commit-decision.btm"))) {
            Files.writeString(rules, new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("@ARM@", arm.toString()));
        }
        Api doomed = start(deadName, List.of(SecondNode.bytemanAgent(rules)), shortLeases(settings(home, "2s")));
        Path peerHome = Files.createDirectories(home.resolveSibling(peerName + "-" + UUID.randomUUID()));
        Api peer = start(peerName, List.of(), shortLeases(settings(peerHome, "2s")));
        long epoch = epochOf(deadName);

        long application = draft(doomed);
        String key = UUID.randomUUID().toString();
        Files.writeString(arm.resolveSibling("armed.after"), "armed");
        assertThat(catchThrowable(() -> doomed.post("alice", "/api/applications/" + application + "/submit", null, key)))
                .as("the node halts inside the submit").isNotNull();
        assertThat(nodes.get(0).jvm().awaitExit(Duration.ofSeconds(60))).isTrue();
        String gtrid = gtridOf(deadName, application);
        String row = logRow(deadName, gtrid);
        if (!row.equals("none")) { // else the peer was quicker than this thread: the audit below says what it found
            assertThat(row).isEqualTo("COMMITTING@" + epoch);
        }

        java.time.Instant expiry = db.business().queryForObject("select lease_expires_at from recovery_node where tm_name = ?",
                java.sql.Timestamp.class, deadName).toInstant();
        long deadline = System.nanoTime() + Duration.between(java.time.Instant.now(), expiry).plusSeconds(30).toNanos();
        while (prepared(gtrid) > 0) {
            assertThat(System.nanoTime()).as("a peer finishes " + gtrid + " within 30 s of the lease's expiry").isLessThan(deadline);
            Thread.sleep(200);
        }
        System.out.printf("takeover: %s finished %.1f s after its lease expired%n", gtrid,
                Duration.between(expiry, java.time.Instant.now()).toMillis() / 1000.0);

        assertThat(epochOf(deadName)).as("the dead node is fenced").isEqualTo(epoch + 1);
        assertThat(db.business().queryForObject("select approval_status from application where id = ?", String.class,
                application)).isEqualTo("APPROVING");
        int engineRows = db.engineRowsForBusinessKey(application);
        assertThat(engineRows).as("the process committed on the workflow database").isPositive();
        assertThat(db.business().queryForObject("select status from recovery_intent where gtrid = ?", String.class, gtrid))
                .isEqualTo("COMMITTED");
        assertThat(db.business().queryForList("select action from recovery_audit where actor = 'peer-takeover' and gtrid = ?"
                + " order by seq", String.class, gtrid)).as("both branches were prepared and are committed").containsExactly(
                "TAKEOVER_COMMIT_INTENDED", "TAKEOVER_COMMIT_COMMITTED", "TAKEOVER_COMMIT_INTENDED", "TAKEOVER_COMMIT_COMMITTED");
        assertThat(db.business().queryForList("select detail from recovery_audit where actor = 'peer-takeover' and gtrid = ?"
                + " and action = 'TAKEOVER_COMMIT_INTENDED'", String.class, gtrid))
                .as("the submit's decision was in the table").allMatch(detail -> detail.endsWith("the coordinator log holds COMMITTING"));
        assertThat(db.business().queryForObject("select count(*) from recovery_audit where action = 'TM_NAME_TAKEN_OVER'"
                + " and detail like ?", Integer.class, deadName + " taken over by " + peerName + " under lease epoch %"))
                .isEqualTo(1);
        assertThat(logRow(deadName, gtrid)).as("the record is forgotten").isEqualTo("none");
        assertThat(db.business().queryForObject("select lease_expires_at <= now() from recovery_node where tm_name = ?",
                Boolean.class, deadName)).as("the name is given back").isTrue();

        Api.Response retried = peer.post("alice", "/api/applications/" + application + "/submit", null, key);
        assertThat(retried.status()).as(retried.toString()).isEqualTo(200);
        assertThat(db.engineRowsForBusinessKey(application)).as("nothing started twice").isEqualTo(engineRows);
    }

    /** A lease that runs out 10 s after the last heartbeat, and a peer that looks every 2 s. */
    private static List<String> shortLeases(List<String> settings) {
        List<String> all = new ArrayList<>(settings);
        all.addAll(List.of("--lockstep.recovery.heartbeat-timeout=10s", "--lockstep.recovery.takeover-interval=2s"));
        return all;
    }

    /**
     * Expected: with the name taken under a newer epoch (and no heartbeat to notice it first), the next decision
     * write — the submit's, or one that came first (a background job's, the lazy flush of an earlier TERMINATED
     * record) — is refused by the database: the submit fails, nothing of it is committed on either database, no row is
     * logged for it (if the node stopped before it, it has not even an intent), and the node stops with
     * the fenced message naming both epochs. Its branches stay prepared (Atomikos leaves them to recovery) until the
     * next holder of the name starts and rolls them back.
     */
    @Test
    void aDecisionUnderAnOldEpochIsRefusedAndTheNodeStops() throws Exception {
        String tmName = "dblog-fenced-" + System.nanoTime() % 100000 + ".tm";
        Path home = Files.createDirectories(Path.of("target/it-var/" + tmName + "-" + UUID.randomUUID()).toAbsolutePath());
        Api api = start(tmName, List.of(), settings(home, "1h"));
        long epoch = epochOf(tmName);
        long application = draft(api);

        db.business().update("update recovery_node set epoch = epoch + 1 where tm_name = ?", tmName);
        Integer submitted;
        try {
            submitted = submit(api, application).status();
        } catch (IllegalStateException connectionClosed) {
            submitted = null; // the node stopped before it answered
        }
        assertThat(submitted).as("the submit failed").satisfiesAnyOf(status -> assertThat(status).isNull(),
                status -> assertThat(status).isBetween(400, 599));

        SecondNode node = nodes.get(0);
        assertThat(node.jvm().awaitExit(Duration.ofSeconds(60))).as("the node stops").isTrue();
        assertThat(node.jvm().exitValue()).isEqualTo(FencedNode.EXIT_CODE);
        assertThat(node.log()).contains("FENCED: transaction manager name " + tmName + " is held under lease epoch "
                + (epoch + 1) + ", this node holds epoch " + epoch);
        assertThat(db.business().queryForObject("select approval_status from application where id = ?", String.class,
                application)).isEqualTo("DRAFT");
        assertThat(db.engineRowsForBusinessKey(application)).isZero();
        List<String> gtrids = db.business().queryForList("select gtrid from recovery_intent where tm_name = ?"
                + " and business_key = ?", String.class, tmName, Long.toString(application));
        gtrids.forEach(gtrid -> assertThat(logRow(tmName, gtrid)).isEqualTo("none"));

        // Atomikos leaves a transaction whose decision could not be logged to recovery (presumed abort); the
        // instance that holds the name next rolls its branches back at startup: no decision, no commit
        start(tmName, List.of(), settings(home, "1h"));
        for (String gtrid : gtrids) {
            assertThat(prepared(gtrid)).as("no branch left prepared").isZero();
        }
        assertThat(db.business().queryForObject("select approval_status from application where id = ?", String.class,
                application)).isEqualTo("DRAFT");
    }

    private Api start(String tmName, List<String> jvmOptions, List<String> settings) {
        SecondNode node = SecondNode.start(endpoints, tmName, jvmOptions, settings);
        nodes.add(node);
        node.jvm().awaitHealth(Duration.ofMinutes(5), status -> status == 200);
        return new Api(new MockEnvironment().withProperty("local.server.port", Integer.toString(node.jvm().httpPort())));
    }

    /** The database log, one log directory for both runs (the lease's location), an applicant. */
    private static List<String> settings(Path home, String heartbeat) {
        return List.of("--lockstep.tm.log=database", "--lockstep.tm.log-dir=" + home.resolve("atomikos"),
                "--lockstep.recovery.heartbeat-interval=" + heartbeat,
                // the engine's job executor commits JTA transactions of its own: the halt must catch the submit's decision
                "--lockstep.engine.jobs.enabled=false",
                "--lockstep.security.users[1].name=alice", "--lockstep.security.users[1].password={noop}" + Api.DEMO_PASSWORD,
                "--lockstep.security.users[1].roles[0]=APPLICANT");
    }

    private static long draft(Api api) {
        Api.Response created = api.post("alice", "/api/applications", """
                {"title": "database log", "assetId": 42, "amount": 10, "riskLevel": "LOW", "sensitive": false}""");
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        return created.json().get("id").asLong();
    }

    private static Api.Response submit(Api api, long application) {
        return api.post("alice", "/api/applications/" + application + "/submit", null, UUID.randomUUID().toString());
    }

    private long epochOf(String tmName) {
        return db.business().queryForObject("select epoch from recovery_node where tm_name = ?", Long.class, tmName);
    }

    private String gtridOf(String tmName, long application) {
        return db.business().queryForObject("select gtrid from recovery_intent where tm_name = ? and business_key = ?",
                String.class, tmName, Long.toString(application));
    }

    /** state@epoch of the gtrid's row, or none. */
    private String logRow(String tmName, String gtrid) {
        return db.business().queryForList("select state || '@' || epoch from tm_coordinator_log where tm_name = ?"
                + " and coordinator_id = ?", String.class, tmName, gtrid).stream().findFirst().orElse("none");
    }

    private int prepared(String gtrid) {
        String pattern = "%\\_" + Base64.getEncoder().encodeToString(gtrid.getBytes(StandardCharsets.US_ASCII)) + "\\_%";
        String sql = "select count(*) from pg_prepared_xacts where gid like ?";
        return db.business().queryForObject(sql, Integer.class, pattern) + db.workflow().queryForObject(sql, Integer.class, pattern);
    }

    private void awaitNothingPrepared(String gtrid) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (prepared(gtrid) > 0) {
            assertThat(System.nanoTime()).as("recovery finishes " + gtrid + " from the table").isLessThan(deadline);
            Thread.sleep(200);
        }
    }
}
