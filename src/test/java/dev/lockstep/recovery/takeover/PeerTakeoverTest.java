package dev.lockstep.recovery.takeover;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.platform.DatabaseVendor;
import dev.lockstep.platform.audit.AuditTrail;
import dev.lockstep.recovery.InDoubtMonitor;
import dev.lockstep.recovery.PreparedBranches;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.TestDatabases;
import dev.lockstep.transactions.xa.DecodedXid;
import dev.lockstep.transactions.xa.PgGidCodec;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import javax.transaction.xa.Xid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;

/**
 * Peer takeover on this context's two databases, read with plain SQL: a dead name's transactions are set up as a node
 * halted mid-commit leaves them (branches prepared through pgjdbc's XAResource under its XIDs, its coordinator log rows
 * and intent journal rows, its lease run out), and a {@link PeerTakeover} of another name finishes them by the log.
 */
@LockstepIntegrationTest
class PeerTakeoverTest {

    @Autowired TestDatabases db;
    @Autowired DatabaseEndpoints endpoints;
    @Autowired InDoubtMonitor monitor;
    @Autowired AuditTrail audit;
    @Autowired @Qualifier("recoveryBusinessDataSource") HikariDataSource business;

    private final String suffix = Long.toString(System.nanoTime() % 100000);
    private final String dead = "dead-" + suffix + ".tm";
    private final String alive = "alive-" + suffix + ".tm";
    private final String fileLogged = "filelog-" + suffix + ".tm";

    @AfterEach
    void cleanUp() {
        PreparedBranches.rollBackAll(db.business(), db.workflow());
        db.business().update("delete from application where title = 'in-doubt test'");
        for (String name : List.of(dead, alive, fileLogged)) {
            db.business().update("delete from tm_coordinator_log where tm_name = ?", name);
            db.business().update("delete from recovery_node where tm_name = ?", name);
        }
    }

    /**
     * Expected: the decided transaction (COMMITTING) committed on both databases, the undecided one (no record) and the
     * ABORTING one rolled back, the heuristic one left prepared for the console, a COMMITTING record whose branches had
     * ended forgotten; each branch's end audited as intended and as done; the intent journal rows carry the outcomes;
     * the name is held under the next epoch by the taker and given back; a name whose lease runs, and one whose holder
     * kept a file log, are not touched.
     */
    @Test
    void aDeadNamesTransactionsAreFinishedByItsLogAndTheNameIsGivenBack() throws Exception {
        lease(dead, 4, "- interval '1 minute'");
        lease(alive, 1, "+ interval '1 hour'");
        lease(fileLogged, 2, "- interval '1 minute'", "file");
        String decided = gtrid(dead, 17);
        String undecided = gtrid(dead, 18);
        String aborting = gtrid(dead, 19);
        String heuristic = gtrid(dead, 20);
        String endedBeforeDeath = gtrid(dead, 21);
        String aliveOwn = gtrid(alive, 22);
        String fileLoggedOwn = gtrid(fileLogged, 23);
        PreparedBranches prepared = new PreparedBranches(endpoints);
        prepared.prepareOnBusiness(xid(dead, decided, "1"));
        prepared.prepareOnWorkflow(xid(dead, decided, "2"));
        prepared.prepareOnBusiness(xid(dead, undecided, "3"));
        prepared.prepareOnWorkflow(xid(dead, undecided, "4"));
        prepared.prepareOnBusiness(xid(dead, aborting, "5"));
        prepared.prepareOnBusiness(xid(dead, heuristic, "6"));
        prepared.prepareOnBusiness(xid(alive, aliveOwn, "7"));
        prepared.prepareOnBusiness(xid(fileLogged, fileLoggedOwn, "8"));
        logRecord(dead, decided, "COMMITTING", 4);
        logRecord(dead, aborting, "ABORTING", 4);
        logRecord(dead, heuristic, "HEUR_MIXED", 4);
        logRecord(dead, endedBeforeDeath, "COMMITTING", 4);
        intent(dead, decided);
        intent(dead, undecided);
        int rowsBefore = inDoubtRows();

        takeover("taker-" + suffix + ".tm").takeOverExpiredNames();

        assertThat(preparedGtrids()).doesNotContain(decided, undecided, aborting).contains(heuristic, aliveOwn, fileLoggedOwn);
        assertThat(inDoubtRows()).as("only the decided transaction's business branch committed").isEqualTo(rowsBefore + 1);
        assertThat(actions(decided)).containsExactly("TAKEOVER_COMMIT_INTENDED", "TAKEOVER_COMMIT_COMMITTED",
                "TAKEOVER_COMMIT_INTENDED", "TAKEOVER_COMMIT_COMMITTED");
        assertThat(actions(undecided)).containsExactly("TAKEOVER_ROLLBACK_INTENDED", "TAKEOVER_ROLLBACK_ROLLED_BACK",
                "TAKEOVER_ROLLBACK_INTENDED", "TAKEOVER_ROLLBACK_ROLLED_BACK");
        assertThat(actions(aborting)).containsExactly("TAKEOVER_ROLLBACK_INTENDED", "TAKEOVER_ROLLBACK_ROLLED_BACK");
        assertThat(actions(heuristic)).isEmpty();
        assertThat(takenOver(dead)).isEqualTo(1);
        assertThat(takenOver(alive)).isZero();
        assertThat(takenOver(fileLogged)).as("its decisions are in a file out of reach").isZero();
        assertThat(db.business().queryForList("select coordinator_id from tm_coordinator_log where tm_name = ?", String.class,
                dead)).as("only the heuristic record is kept").containsExactly(heuristic);
        assertThat(db.business().queryForList("select gtrid || ' ' || status from recovery_intent where tm_name = ?"
                + " order by gtrid", String.class, dead)).containsExactly(decided + " COMMITTED", undecided + " ROLLED_BACK");
        assertThat(db.business().queryForObject("select epoch from recovery_node where tm_name = ?", Long.class, dead))
                .as("the old holder is fenced").isEqualTo(5);
        assertThat(db.business().queryForObject("select holder_location from recovery_node where tm_name = ?", String.class,
                dead)).isEqualTo("peer-takeover by taker-" + suffix + ".tm");
        assertThat(db.business().queryForObject("select lease_expires_at <= now() from recovery_node where tm_name = ?",
                Boolean.class, dead)).as("the name is given back").isTrue();
        assertThat(db.business().queryForObject("select epoch from recovery_node where tm_name = ?", Long.class, alive))
                .isEqualTo(1);
    }

    /** Expected: two nodes finding the same dead name at the same moment: one takes it, its branch ends once. */
    @Test
    void twoNodesRacingForOneNameTakeItOnce() throws Exception {
        lease(dead, 7, "- interval '1 minute'");
        String undecided = gtrid(dead, 31);
        PreparedBranches prepared = new PreparedBranches(endpoints);
        prepared.prepareOnBusiness(xid(dead, undecided, "1"));
        prepared.prepareOnWorkflow(xid(dead, undecided, "2"));
        PeerTakeover first = takeover("racer-a-" + suffix + ".tm");
        PeerTakeover second = takeover("racer-b-" + suffix + ".tm");
        CyclicBarrier start = new CyclicBarrier(2);

        CompletableFuture.allOf(
                CompletableFuture.runAsync(() -> awaitThen(start, first::takeOverExpiredNames)),
                CompletableFuture.runAsync(() -> awaitThen(start, second::takeOverExpiredNames))).get();

        assertThat(takenOver(dead)).isEqualTo(1);
        assertThat(db.business().queryForObject("select epoch from recovery_node where tm_name = ?", Long.class, dead))
                .isEqualTo(8);
        assertThat(preparedGtrids()).doesNotContain(undecided);
        assertThat(actions(undecided)).containsExactly("TAKEOVER_ROLLBACK_INTENDED", "TAKEOVER_ROLLBACK_ROLLED_BACK",
                "TAKEOVER_ROLLBACK_INTENDED", "TAKEOVER_ROLLBACK_ROLLED_BACK");
    }

    /**
     * Expected: while another transaction holds the dead name's lease row, a pass gives up after the recovery pool's
     * lock timeout (it returns, the name is not taken, its branch stays prepared) instead of holding the takeover thread
     * as long as the holder; once the row is free, the next pass takes it.
     */
    @Test
    void aPassThatWaitsForALockGivesUpAndTheNextOneTakesTheName() throws Exception {
        lease(dead, 3, "- interval '1 minute'");
        String undecided = gtrid(dead, 41);
        new PreparedBranches(endpoints).prepareOnBusiness(xid(dead, undecided, "1"));
        PeerTakeover taker = takeover("waiter-" + suffix + ".tm");

        try (Connection holder = business.getConnection()) {
            holder.setAutoCommit(false);
            try (PreparedStatement lock = holder.prepareStatement("select epoch from recovery_node where tm_name = ? for update")) {
                lock.setString(1, dead);
                lock.executeQuery().close();
            }
            CompletableFuture<Void> pass = CompletableFuture.runAsync(taker::takeOverExpiredNames);
            pass.get(60, TimeUnit.SECONDS);
            assertThat(takenOver(dead)).as("not taken while its row was held").isZero();
            assertThat(preparedGtrids()).contains(undecided);
            holder.rollback();
        }

        taker.takeOverExpiredNames();
        assertThat(takenOver(dead)).isEqualTo(1);
        assertThat(db.business().queryForObject("select epoch from recovery_node where tm_name = ?", Long.class, dead))
                .isEqualTo(4);
        assertThat(preparedGtrids()).doesNotContain(undecided);
    }

    private PeerTakeover takeover(String self) {
        return new PeerTakeover(self, "peer-takeover by " + self, List.of(
                monitor.store(DatabaseEndpoints.BUSINESS_RESOURCE).orElseThrow(),
                monitor.store(DatabaseEndpoints.WORKFLOW_RESOURCE).orElseThrow()),
                business, DatabaseVendor.POSTGRESQL, audit, Duration.ofMinutes(1), Clock.systemUTC(), new SimpleMeterRegistry());
    }

    private static void awaitThen(CyclicBarrier barrier, Runnable action) {
        try {
            barrier.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        action.run();
    }

    /** A lease row as a node leaves it: {@code expiry} is relative to the database's clock. */
    private void lease(String name, long epoch, String expiry) {
        lease(name, epoch, expiry, "database");
    }

    private void lease(String name, long epoch, String expiry, String logStore) {
        db.business().update("insert into recovery_node (tm_name, started_at, heartbeat_at, holder_location, instance_id,"
                + " log_store, lease_expires_at, epoch) values (?, now() - interval '1 hour', now() - interval '2 minutes',"
                + " ?, ?, ?, now() " + expiry + ", ?)", name, "host:/var/lib/" + name, "instance-" + name, logStore, epoch);
    }

    /** An Atomikos gtrid of {@code name}, begun a minute ago. */
    private static String gtrid(String name, int counter) {
        return name + (System.currentTimeMillis() - 60_000) + String.format("%05d", counter);
    }

    private static Xid xid(String name, String gtrid, String branch) {
        return PreparedBranches.xid(DecodedXid.ATOMIKOS_FORMAT_ID, gtrid, name + branch);
    }

    /** A row as DatabaseLogRepository writes it, in Atomikos's record format. */
    private void logRecord(String name, String gtrid, String state, long epoch) {
        db.business().update("insert into tm_coordinator_log (tm_name, coordinator_id, epoch, state, record_text, created_at,"
                + " updated_at) values (?, ?, ?, ?, ?, now(), now())", name, gtrid, epoch, state,
                gtrid + "|" + state + "|" + (System.currentTimeMillis() + 3_600_000) + "|" + name + "|");
    }

    private void intent(String name, String gtrid) {
        db.business().update("insert into recovery_intent (gtrid, tm_name, use_case, business_key, request_id, user_id, status,"
                + " recorded_at) values (?, ?, 'submit', '42', null, 'alice', 'PREPARING', now())", gtrid, name);
    }

    private List<String> actions(String gtrid) {
        return db.business().queryForList("select action from recovery_audit where gtrid = ? and actor = 'peer-takeover'"
                + " order by seq", String.class, gtrid);
    }

    private int takenOver(String name) {
        return db.business().queryForObject("select count(*) from recovery_audit where actor = 'peer-takeover'"
                + " and action = 'TM_NAME_TAKEN_OVER' and detail like ?", Integer.class, name + " taken over by %");
    }

    private int inDoubtRows() {
        return db.business().queryForObject("select count(*) from application where title = 'in-doubt test'", Integer.class);
    }

    private List<String> preparedGtrids() {
        return db.preparedTransactions().stream()
                .map(row -> PgGidCodec.decode((String) row.get("gid")).map(DecodedXid::gtridText).orElse("?"))
                .toList();
    }
}
