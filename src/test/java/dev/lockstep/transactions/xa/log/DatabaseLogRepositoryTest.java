package dev.lockstep.transactions.xa.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.atomikos.recovery.PendingTransactionRecord;
import com.atomikos.recovery.TxState;
import com.zaxxer.hikari.HikariDataSource;
import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.platform.DatabaseVendor;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.TestDatabases;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The coordinator log in the business database, on the shared context's real PostgreSQL under a name of its own
 * (a row in recovery_node at epoch {@value #EPOCH}): records are committed under the epoch, superseded in place, read
 * back as the live ones, TERMINATED rows deleted by a checkpoint; concurrent decisions share one commit. Read with
 * plain SQL. (A refused write stops the JVM: ExitWhenFencedTest runs it in a node of its own.)
 */
@LockstepIntegrationTest
class DatabaseLogRepositoryTest {

    private static final long EPOCH = 7;
    private static final long IN_AN_HOUR = System.currentTimeMillis() + Duration.ofHours(1).toMillis();

    @Autowired TestDatabases db;
    @Autowired DatabaseEndpoints endpoints;

    private final String tmName = "dblog-" + UUID.randomUUID().toString().substring(0, 8) + ".tm";
    private HikariDataSource pool;

    @BeforeEach
    void aNameHeldAtAnEpoch() {
        db.business().update("insert into recovery_node (tm_name, started_at, heartbeat_at, epoch) values (?, now(), now(), ?)",
                tmName, EPOCH);
        pool = new HikariDataSource(endpoints.business().plainPool("dblog-test", 2));
    }

    @AfterEach
    void cleanUp() {
        pool.close();
        db.business().update("delete from tm_coordinator_log where tm_name = ?", tmName);
        db.business().update("delete from recovery_node where tm_name = ?", tmName);
    }

    @Test
    void recordsAreCommittedUnderTheEpochSupersededInPlaceAndTheLiveOnesReadBack() throws Exception {
        DatabaseLogRepository log = open();
        log.put("a", record("a", TxState.COMMITTING));
        log.put("b", record("b", TxState.COMMITTING));
        assertThat(rows()).as("queued, not yet committed").isEmpty();
        log.forceAppended();
        assertThat(rows()).isEqualTo(Map.of("a", "COMMITTING@7", "b", "COMMITTING@7"));

        log.put("a", record("a", TxState.TERMINATED));
        assertThat(rows()).as("TERMINATED waits for the next commit").containsEntry("a", "COMMITTING@7");
        log.forceAppended();
        assertThat(rows()).isEqualTo(Map.of("a", "TERMINATED@7", "b", "COMMITTING@7"));
        assertThat(log.forces()).isEqualTo(2);

        assertThat(open().getAllCoordinatorLogEntries()).as("a restart reads the live records")
                .extracting(record -> record.id + ":" + record.state).containsExactly("b:COMMITTING");
        PendingTransactionRecord readBack = open().getAllCoordinatorLogEntries().iterator().next();
        assertThat(readBack.toRecord()).as("read back as written").isEqualTo(record("b", TxState.COMMITTING).toRecord());
        assertThat(readBack.isLocalRoot("lockstep-test.tm")).as("a root transaction of this name, which recovery replays")
                .isTrue();

        log.put("c", record("c", TxState.COMMITTING));
        log.forceAppended();
        log.writeCheckpoint(List.of(record("b", TxState.COMMITTING)));
        assertThat(rows()).as("the checkpoint keeps the live records alone: a's TERMINATED row goes, and c's, which"
                + " Atomikos forgot without TERMINATED").isEqualTo(Map.of("b", "COMMITTING@7"));
    }

    /** Expected: an idle node's TERMINATED record reaches the table by the lazy flush, without a force or a later decision. */
    @Test
    void aTerminatedRecordIsWrittenWithinASecondOrSoWhenNoDecisionFollows() throws Exception {
        DatabaseLogRepository log = open();
        log.init();
        try {
            log.put("a", record("a", TxState.COMMITTING));
            log.forceAppended();
            log.put("a", record("a", TxState.TERMINATED));
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (!rows().equals(Map.of("a", "TERMINATED@7"))) {
                assertThat(System.nanoTime()).as("the lazy flush wrote TERMINATED: " + rows()).isLessThan(deadline);
                Thread.sleep(100);
            }
            assertThat(log.forces()).as("a flush is not a decision's force").isEqualTo(1);
        } finally {
            log.close();
        }
    }

    @Test
    void concurrentDecisionsShareOneCommit() throws Exception {
        DatabaseLogRepository log = open();
        int writers = 16;
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        List<Thread> threads = new ArrayList<>();
        try (Connection holder = endpoints.business().plainDataSource().getConnection()) {
            // the first commit waits on the name's row, so every other writer queues its record behind it
            holder.setAutoCommit(false);
            try (PreparedStatement lock = holder.prepareStatement("select 1 from recovery_node where tm_name = ? for update")) {
                lock.setString(1, tmName);
                lock.executeQuery().close();
            }
            for (int i = 0; i < writers; i++) {
                String id = "t" + i;
                Thread writer = new Thread(() -> {
                    try {
                        log.put(id, record(id, TxState.COMMITTING));
                        log.forceAppended();
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                });
                threads.add(writer);
                writer.start();
            }
            awaitBlocked(threads, writers - 1);
            assertThat(rows()).isEmpty();
            holder.commit();
        }
        for (Thread writer : threads) {
            writer.join(30_000);
        }

        assertThat(failures).isEmpty();
        assertThat(rows()).hasSize(writers).allSatisfy((id, state) -> assertThat(state).isEqualTo("COMMITTING@7"));
        assertThat(log.forces()).as("the waiting leader's commit, then one for all the others").isEqualTo(2);
    }

    private DatabaseLogRepository open() {
        return new DatabaseLogRepository(new DatabaseLogTarget(pool, DatabaseVendor.POSTGRESQL, tmName, EPOCH));
    }

    private Map<String, String> rows() {
        return db.business().queryForList("select coordinator_id, state, epoch from tm_coordinator_log where tm_name = ?",
                tmName).stream().collect(Collectors.toMap(row -> (String) row.get("coordinator_id"),
                        row -> row.get("state") + "@" + row.get("epoch")));
    }

    /**
     * Waits until {@code count} writers are blocked behind the one whose commit waits in the database, and that one's
     * statement waits on the row. Both are polled: the others can block on the leader before its statement has reached
     * the server.
     */
    private void awaitBlocked(List<Thread> threads, int count) {
        await("writers blocked behind the first commit").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20))
                .until(() -> threads.stream().filter(thread -> thread.getState() == Thread.State.BLOCKED).count() >= count);
        await("the leader waits on the row").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20))
                .until(() -> db.business().queryForObject("select count(*) from pg_stat_activity where wait_event_type = 'Lock'"
                        + " and query like 'insert into tm_coordinator_log%'", Integer.class) == 1);
    }

    private static PendingTransactionRecord record(String id, TxState state) {
        return new PendingTransactionRecord(id, state, IN_AN_HOUR, "lockstep-test.tm");
    }
}
